# integration/: start-up, the malloc/new entry points, the public API, the CLI
set(HP_INTEGRATION_SOURCES
  integration/boot.c integration/init.c integration/malloc.c integration/fork.c
  integration/newdelete.c integration/cxx_runtime.c integration/api.c integration/report_keys.c integration/glibc_api.c
  integration/version.c integration/live.c integration/live_block.c)
set(HP_CLI_SOURCES integration/cli.c integration/cli_probe.c integration/cli_run.c
  integration/cli_library.c integration/cli_version.c pages/fault_measure.c
  integration/cli_inspect.c integration/inspect_smaps.c integration/inspect_format.c
  integration/cli_tune.c integration/tune_configs.c integration/tune_measure.c integration/tune_stats.c
  integration/tune_output.c integration/inspect_live.c integration/live_block.c integration/report_keys.c)
