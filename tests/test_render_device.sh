#!/bin/sh
# test_render_device.sh BUILD_DIR - the render workload's Embree device
# follows hugepolicy's page mode as the render README says: hugepages=1
# only where a whole-heap mode was asked (thp, hugetlb); auto leaves
# Embree's memory to its defaults and to the plan's own per-block advice;
# off gives Embree base pages too (PR_SET_THP_DISABLE); without hugepolicy,
# Embree's defaults.  The mode is read from hugepolicy_stats() at run time,
# so the line names what hugepolicy reported.  Exit 77: render not built.
. "$(dirname "$0")/test_cli_common.sh"
render="$build/perf/render"
[ -x "$render" ] || { echo "SKIP: $render not built (Embree, assimp, libpng, libarchive)"; exit 77; }
[ -r /usr/share/glmark2/models/bunny.obj ] || { echo "SKIP: no bunny.obj (glmark2-data)"; exit 77; }

# device PAGES: the render-device line under HUGEPOLICY_PAGES=PAGES ("" = no hugepolicy)
device() {
	if [ -n "$1" ]; then
		env LD_PRELOAD="$lib" HUGEPOLICY_BACKEND=jemalloc HUGEPOLICY_PAGES="$1" \
			"$render" --scene bunny --quality quick --grid 1 --subdiv 0 --out "$t" >"$t/out" 2>"$t/err"
	else
		env -u LD_PRELOAD "$render" --scene bunny --quality quick --grid 1 --subdiv 0 --out "$t" >"$t/out" 2>"$t/err"
	fi
	rc=$?
	[ $rc -eq 0 ] || { echo "render (pages '$1') exit $rc:"; cat "$t/err"; }
	grep '^render-device ' "$t/out"
}

thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
line=$(device auto)
echo "$line"
case $thp in
*"[never]"*)
	check "auto on THP never: off in effect, base pages for Embree too" \
		matches "$line" '.*hugepages=0 (auto: hugepolicy pages=off; THP disabled' ;;
*)
	check "auto: hugepages=0, Embree's defaults, the mode in effect named" \
		matches "$line" "render-device embree_config=hugepages=0 (auto: hugepolicy pages=auto (in effect [a-z]*): Embree's defaults) " ;;
esac
check "... and no THP disable under auto" sh -c "! grep -q PR_SET_THP_DISABLE '$t/out'"

line=$(device off)
echo "$line"
check "off: hugepages=0 and THP disabled for the process" \
	matches "$line" 'render-device embree_config=hugepages=0 (auto: hugepolicy pages=off; THP disabled for the process (PR_SET_THP_DISABLE))'

line=$(device thp)
echo "$line"
case $thp in
*"[never]"*)
	check "thp on THP never: off in effect" matches "$line" '.*hugepages=0 (auto: hugepolicy pages=off' ;;
*)
	check "thp: hugepages=1, whole heap asked" \
		matches "$line" 'render-device embree_config=hugepages=1 (auto: hugepolicy pages=thp) ' ;;
esac

line=$(device "")
echo "$line"
check "no hugepolicy: hugepages=0, Embree's defaults, no THP disable" \
	matches "$line" "render-device embree_config=hugepages=0 (auto: hugepolicy not loaded: Embree's defaults) "
finish test_render_device
