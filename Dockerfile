# The action's image: Debian 12 with the .NET 8 SDK, then the SAME scripts/setup.sh that CI runs, in its
# product-only mode (Debian's Python libraries, Dafny 4.11.0 as a .NET tool, the venv with dspec2test;
# no pytest, hypothesis, matplotlib or linters), so the image and CI cannot drift.
# Z3 for Dafny: vendor/z3/z3-4.12.1 when scripts/fetch-z3.sh put it in the build context (the release
# workflow does: it is the Z3 Dafny 4.11's own releases carry), else Debian's 4.8.12.
# Runs as root with no WORKDIR: GitHub mounts the workspace and sets it. PYTHONUNBUFFERED: the step's log
# shows each line as it is written, not all of them when the run ends.
#
# The base is pinned by the digest of its multi-platform index (refresh it with
# `docker buildx imagetools inspect mcr.microsoft.com/dotnet/sdk:8.0-bookworm-slim`); where no registry
# is reachable, `podman build --from localhost/dotnet-sdk-local:bookworm` replaces it.
FROM mcr.microsoft.com/dotnet/sdk:8.0-bookworm-slim@sha256:306301580fcaa5b445180e759db59309979002d1000669cb4cf58a567d0014bc

ENV DEBIAN_FRONTEND=noninteractive \
    DOTNET_CLI_TELEMETRY_OPTOUT=1 \
    DOTNET_NOLOGO=1 \
    DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
    DOTNET_ROLL_FORWARD=Major \
    PYTHONUNBUFFERED=1 \
    NUGET_PACKAGES=/app/.nuget/packages

COPY . /app
# Dafny's C# target builds each test program with `dotnet build`, which restores NuGet packages
# (System.Runtime.Numerics, System.Collections.Immutable, ...): building one test here keeps them in
# the image, in NUGET_PACKAGES since GitHub sets HOME=/github/home for the action, so a run restores
# nothing and needs no network. Their API documentation (XML beside the reference assemblies, two
# thirds of their size), NuGet's HTTP cache and the build's scratch files are of no use to a build.
RUN bash /app/scripts/setup.sh --product \
    && printf 'method {:test} Warm() { expect 1 + 1 == 2; }\n' > /tmp/warm.dfy \
    && /app/.tools/dafny/dafny test --no-verify --target cs /tmp/warm.dfy \
    && find /app/.nuget/packages \( -path '*/ref/*' -o -path '*/lib/*' \) -name '*.xml' -delete \
    && rm -rf /var/lib/apt/lists/* /root/.local/share/NuGet \
    && find /tmp -mindepth 1 -delete \
    && chmod +x /app/entrypoint/entrypoint.sh
# From now on restores take those packages from there alone (an MSBuild property from the environment):
# without it NuGet still asks its online feed on every run, and fails where the network is closed.
ENV RestoreSources=/app/.nuget/packages

ENTRYPOINT ["/app/entrypoint/entrypoint.sh"]
