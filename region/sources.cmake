# region/: the huge-page region API (hugepolicy_region_*), one file per OS
set(HP_REGION_SOURCES)
