# region/: the huge-page region API (hugepolicy_region_*); region.c is the
# same on every OS, the rest is Linux's (region/windows/ builds Windows's)
set(HP_REGION_SOURCES
  region/region.c region/region_table.c region/region_say.c region/region_process.c region/region_linux.c region/region_map.c region/region_numa.c
  region/region_populate.c region/region_resize.c region/region_smaps.c)
