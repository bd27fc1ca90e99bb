#!/bin/sh
# check_quick.sh BUILD_DIR - every render scene runs in quick mode under
# `hugepolicy run --backend system --pages thp` and its output is sane:
# counts consistent (triangles = mesh_triangles * 4^subdiv, scene_triangles
# = triangles * instances + 2), image not blank (nonblack > 0.05, a mesh
# covers > 2 % of the pixels), the PNG exists, Embree got hugepages=1 from
# hugepolicy_pages().
# Exit: 0 all scenes passed; 1 a scene failed; 2 usage; 77 skipped (render
# not built, or a mesh package not installed: the reason is printed; the
# scenes that are installed are still checked first).
set -u
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
render=$build/perf/render
cli=$build/hugepolicy
if [ ! -x "$render" ]; then
	echo "SKIP: $render not built (needs libembree-dev libassimp-dev libpng-dev libarchive-dev)"
	exit 77
fi
if [ ! -x "$cli" ]; then
	echo "FAIL: $cli not built" >&2
	exit 1
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/render-check.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

# "NAME PACKAGE yes|no" per scene
"$render" --list | sed -n 's/^scene \([^ ]*\) package=\([^ ]*\) .* present=\(yes\|no\)$/\1 \2 \3/p' \
	> "$out/scenes" || { echo "FAIL: $render --list" >&2; exit 1; }
[ -s "$out/scenes" ] || { echo "FAIL: $render --list printed no scenes" >&2; exit 1; }

failed=0
missing=
while read -r name pkg present; do
	if [ "$present" != yes ]; then
		missing="$missing $name($pkg)"
		continue
	fi
	"$cli" run --backend system --pages thp -- \
		"$render" --scene "$name" --quality quick --out "$out" \
		< /dev/null > "$out/$name.out" 2> "$out/$name.err"
	rc=$?
	line=$(grep "^render scene=$name " "$out/$name.out")
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		echo "FAIL $name: exit $rc, no result line"
		tail -n 5 "$out/$name.err"
		failed=1
		continue
	fi
	why=$(echo "$line" | awk '{
		for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = substr($i, length(kv[1]) + 2) }
		t = v["mesh_triangles"]; for (k = 0; k < v["subdiv"]; k++) t *= 4
		if (v["triangles"] <= 0) print "triangles=" v["triangles"]
		else if (v["triangles"] != t) print "triangles " v["triangles"] " != mesh_triangles*4^subdiv " t
		else if (v["scene_triangles"] != v["triangles"] * v["instances"] + 2)
			print "scene_triangles " v["scene_triangles"] " != triangles*instances+2"
		else if (v["nonblack"] <= 0.05) print "image blank: nonblack=" v["nonblack"]
		else if (v["mesh_px"] <= 0.02) print "mesh hardly visible: mesh_px=" v["mesh_px"]
		else if (v["rays"] <= 0) print "rays=" v["rays"]
		else if (v["embree_hugepages"] != 1) print "embree_hugepages=" v["embree_hugepages"] " under thp"
		else if (v["total_s"] <= 0) print "total_s=" v["total_s"]
		else print "image=" v["image"]
	}')
	case $why in
	image=*)
		img=${why#image=}
		if [ "$(head -c 8 "$img" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
			echo "FAIL $name: $img missing or not a PNG"
			failed=1
		else
			echo "ok   $name:$(for k in triangles instances scene_triangles total_s nonblack mesh_px; do
				printf ' %s' "$(echo "$line" | tr ' ' '\n' | grep "^$k=")"; done)"
		fi ;;
	*)
		echo "FAIL $name: $why"
		echo "  $line"
		failed=1 ;;
	esac
done < "$out/scenes"

[ $failed -eq 0 ] || exit 1
if [ -n "$missing" ]; then
	echo "SKIP: meshes not installed for:$missing (apt-get install the packages named)"
	exit 77
fi
exit 0
