# The action's image, in two variants of one file:
#   py (the default, the last stage): Debian 12 with the .NET 8 *runtime* only. Dafny runs on it, and
#       `dafny translate py` and our Python driver need no SDK: a third of the SDK variant's size.
#   cs (`--target cs`, released as `:vX.Y.Z-cs`): Debian 12 with the .NET 8 SDK, for `target: cs`
#       (Dafny builds each C# test program with `dotnet build`), with the NuGet packages those builds
#       restore already in it, so a run needs no network.
# Dafny 4.11.0 is installed as a .NET tool in a stage of its own (that needs the SDK) and copied in.
# The SAME scripts/setup.sh that CI runs makes the rest, in its product-only mode (Debian's Python
# libraries, the venv with dspec2test; no pytest, hypothesis, matplotlib or linters), so the image and
# CI cannot drift. Layers go from what changes least to what changes most: Debian packages, Dafny, then
# the sources, so a source edit rebuilds the last layers only.
# Z3 for Dafny: vendor/z3/z3-4.12.1 when scripts/fetch-z3.sh put it in the build context (the release
# workflow does: the Z3 Dafny 4.11's own releases carry), else Debian's 4.8.12.
# Runs as root with no WORKDIR: GitHub mounts the workspace and sets it. PYTHONUNBUFFERED: the step's log
# shows each line as it is written, not all of them when the run ends.
#
# The bases are pinned by the digest of their multi-platform index (.github/dependabot.yml proposes
# updates; by hand: `docker buildx imagetools inspect mcr.microsoft.com/dotnet/sdk:8.0-bookworm-slim`).
# Where no registry is reachable, build a copy of this file whose first two FROM lines name local
# stand-ins (tests/action/test_image.py says how).
FROM mcr.microsoft.com/dotnet/sdk:8.0-bookworm-slim@sha256:306301580fcaa5b445180e759db59309979002d1000669cb4cf58a567d0014bc AS sdk
FROM mcr.microsoft.com/dotnet/runtime:8.0-bookworm-slim@sha256:9d94ecf60a21c6e7a784cf0761fbd4a8391646617a0ff2f39621443d580cc2c3 AS runtime

FROM sdk AS dafny
ENV DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
COPY scripts/setup.sh /app/scripts/setup.sh
RUN bash /app/scripts/setup.sh --product --only=dafny && rm -rf /root/.nuget /root/.dotnet /tmp/*

# ---- py: the default image
FROM runtime AS app
ENV DEBIAN_FRONTEND=noninteractive \
    DOTNET_CLI_TELEMETRY_OPTOUT=1 \
    DOTNET_NOLOGO=1 \
    DOTNET_ROLL_FORWARD=Major \
    PYTHONUNBUFFERED=1 \
    DSPEC2TEST_IMAGE_VARIANT=py
COPY scripts/setup.sh /app/scripts/setup.sh
RUN bash /app/scripts/setup.sh --product --only=packages && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY --from=dafny /app/.tools /app/.tools
COPY . /app
RUN bash /app/scripts/setup.sh --product \
    && rm -rf /var/lib/apt/lists/* \
    && find /tmp -mindepth 1 -delete \
    && chmod +x /app/entrypoint/entrypoint.sh
ENTRYPOINT ["/app/entrypoint/entrypoint.sh"]

# ---- cs: the SDK variant
FROM sdk AS cs
ENV DEBIAN_FRONTEND=noninteractive \
    DOTNET_CLI_TELEMETRY_OPTOUT=1 \
    DOTNET_NOLOGO=1 \
    DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
    DOTNET_ROLL_FORWARD=Major \
    PYTHONUNBUFFERED=1 \
    NUGET_PACKAGES=/app/.nuget/packages \
    DSPEC2TEST_IMAGE_VARIANT=cs
COPY scripts/setup.sh /app/scripts/setup.sh
RUN bash /app/scripts/setup.sh --product --only=packages && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
COPY --from=dafny /app/.tools /app/.tools
# Dafny's C# target builds each test program with `dotnet build`, which restores NuGet packages
# (System.Runtime.Numerics, System.Collections.Immutable, ...): building one test here keeps them in
# the image, in NUGET_PACKAGES since GitHub sets HOME=/github/home for the action, so a run restores
# nothing and needs no network. Their API documentation (XML beside the reference assemblies, two
# thirds of their size), NuGet's HTTP cache and the build's scratch files are of no use to a build.
RUN printf 'method {:test} Warm() { expect 1 + 1 == 2; }\n' > /tmp/warm.dfy \
    && /app/.tools/dafny/dafny test --no-verify --target cs /tmp/warm.dfy \
    && find /app/.nuget/packages \( -path '*/ref/*' -o -path '*/lib/*' \) -name '*.xml' -delete \
    && rm -rf /root/.local/share/NuGet \
    && find /tmp -mindepth 1 -delete
# From now on restores take those packages from there alone (an MSBuild property from the environment):
# without it NuGet still asks its online feed on every run, and fails where the network is closed.
ENV RestoreSources=/app/.nuget/packages
COPY . /app
RUN bash /app/scripts/setup.sh --product \
    && rm -rf /var/lib/apt/lists/* \
    && find /tmp -mindepth 1 -delete \
    && chmod +x /app/entrypoint/entrypoint.sh
ENTRYPOINT ["/app/entrypoint/entrypoint.sh"]

# ---- the default: `docker build .` and `image: Dockerfile` give the py image
FROM app AS py
