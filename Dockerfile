# The action's image: Debian 12 with the .NET 8 SDK, then the SAME scripts/setup.sh that CI runs
# (Debian's z3 and Python libraries, Dafny 4.11.0 as a .NET tool, the venv with dspec2test), so the
# image and CI cannot drift. Runs as root with no WORKDIR: GitHub mounts the workspace and sets it.
FROM mcr.microsoft.com/dotnet/sdk:8.0-bookworm-slim

ENV DEBIAN_FRONTEND=noninteractive \
    DOTNET_CLI_TELEMETRY_OPTOUT=1 \
    DOTNET_NOLOGO=1 \
    DOTNET_ROLL_FORWARD=Major

COPY . /app
RUN bash /app/scripts/setup.sh \
    && rm -rf /var/lib/apt/lists/* \
    && chmod +x /app/entrypoint/entrypoint.sh

ENTRYPOINT ["/app/entrypoint/entrypoint.sh"]
