# policy/: options, probe, plan, report (shared by the library and the CLI)
set(HP_POLICY_SOURCES
  policy/options.c policy/probe.c policy/probe_thp.c policy/probe_pools.c policy/probe_advice.c
  policy/probe_format.c policy/plan.c policy/plan_facts.c policy/plan_pagesize.c policy/plan_thp.c policy/plan_mthp.c policy/report.c policy/log.c
  policy/live.c
  policy/cgroup.c policy/readfile.c policy/promote.c policy/thp_pays.c)
