# policy/: options, probe, plan, report (shared by the library and the CLI)
set(HP_POLICY_SOURCES
  policy/options.c policy/probe.c policy/plan.c policy/report.c policy/log.c
  policy/cgroup.c policy/readfile.c)
