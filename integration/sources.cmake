# integration/: start-up, the malloc/new entry points, the public API, the CLI
set(HP_INTEGRATION_SOURCES
  integration/boot.c integration/init.c integration/malloc.c
  integration/newdelete.c integration/cxx_runtime.c integration/api.c integration/glibc_api.c
  integration/version.c integration/live.c)
set(HP_CLI_SOURCES integration/cli.c integration/cli_probe.c integration/cli_run.c
  integration/cli_library.c integration/cli_version.c pages/fault_measure.c
  integration/cli_inspect.c integration/inspect_smaps.c integration/inspect_format.c
  integration/inspect_live.c)
