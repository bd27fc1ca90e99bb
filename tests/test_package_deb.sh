#!/bin/sh
# test_package_deb.sh WHAT TREE VERSION - the Debian packages of TREE (a
# tree configured for /usr, see test_package_tree.sh), in TREE/deb:
#   build     cpack -G DEB makes libhugepolicy0, libhugepolicy-dev and
#             hugepolicy, VERSION-1, for this architecture
#   contents  each holds what it must (soname and real file, no unversioned
#             link in the runtime package; header, link, .pc, CMake files
#             in -dev; CLI, man pages, licence, notices) and each has
#             /usr/share/doc/<package>/copyright with jemalloc's notice
#   control   Depends (from dpkg-shlibdeps, and = VERSION-1 on the library),
#             Recommends libmimalloc2.0, sections, maintainer, description,
#             and the library's shlibs file
#   runtime   libhugepolicy0 + hugepolicy alone (no -dev) unpacked in a
#             root: its hugepolicy prints --help, and `hugepolicy run`
#             preloads the root's libhugepolicy.so.0 into a command
. "$(dirname "$0")/test_package_lib.sh"
what=$1 tree=$2 version=$3
arch=$(dpkg --print-architecture)
tree=$(realpath "$tree")
debs=$tree/deb
rt=$debs/libhugepolicy0_${version}-1_$arch.deb
dev=$debs/libhugepolicy-dev_${version}-1_$arch.deb
cli=$debs/hugepolicy_${version}-1_$arch.deb
lib=usr/lib/$MULTIARCH

has() {   # has DEB PATH...: dpkg-deb -c lists each
	d=$1; shift
	dpkg-deb -c "$d" | awk '{ print $6 }' | sed 's|^\./||; s|/$||' > "$T/list"
	for p in "$@"; do grep -qxF "$p" "$T/list" || fail "$(basename "$d") lacks $p"; done
}
lacks() {
	d=$1; shift
	dpkg-deb -c "$d" | awk '{ print $6 }' | sed 's|^\./||; s|/$||' > "$T/list"
	for p in "$@"; do ! grep -qxF "$p" "$T/list" || fail "$(basename "$d") must not hold $p"; done
}
field() { dpkg-deb -f "$1" "$2"; }

case $what in
build)
	rm -rf "$debs"
	(cd "$tree" && cpack -G DEB -B "$debs") > "$T/cpack.log" 2>&1 || { cat "$T/cpack.log"; fail "cpack -G DEB"; }
	grep -i warning "$T/cpack.log" && fail "cpack warned"
	for d in "$rt" "$dev" "$cli"; do [ -f "$d" ] || fail "no $(basename "$d")"; echo "built $(basename "$d")"; done
	[ "$(ls "$debs"/*.deb | wc -l)" -eq 3 ] || fail "expected 3 packages: $(ls "$debs")" ;;
contents)
	has "$rt" "$lib/libhugepolicy.so.0" "$lib/libhugepolicy.so.$version" usr/share/doc/libhugepolicy0/copyright
	lacks "$rt" "$lib/libhugepolicy.so" usr/include/hugepolicy.h usr/bin/hugepolicy
	has "$dev" usr/include/hugepolicy.h "$lib/libhugepolicy.so" "$lib/pkgconfig/hugepolicy.pc" \
		"$lib/cmake/hugepolicy/hugepolicyConfig.cmake" "$lib/cmake/hugepolicy/hugepolicyTargets.cmake" \
		usr/share/man/man3/hugepolicy.3.gz usr/share/man/man3/hugepolicy_stats.3.gz \
		usr/share/doc/libhugepolicy-dev/copyright
	lacks "$dev" "$lib/libhugepolicy.so.$version"
	has "$cli" usr/bin/hugepolicy usr/share/man/man1/hugepolicy.1.gz usr/share/man/man7/hugepolicy.7.gz \
		usr/share/doc/hugepolicy/LICENSE usr/share/doc/hugepolicy/THIRD-PARTY-NOTICES \
		usr/share/doc/hugepolicy/copyright
	for d in "$rt" "$dev" "$cli"; do dpkg -x "$d" "$T/root"; done
	soname=$(readelf -d "$T/root/$lib/libhugepolicy.so.$version" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
	[ "$soname" = libhugepolicy.so.0 ] || fail "the library's soname is '$soname'"
	[ "$(readlink "$T/root/$lib/libhugepolicy.so")" = libhugepolicy.so.0 ] || fail "libhugepolicy.so does not link to the soname"
	for p in libhugepolicy0 libhugepolicy-dev hugepolicy; do
		c=$T/root/usr/share/doc/$p/copyright
		grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$c" || fail "$p: copyright not DEP-5"
		grep -q 'Copyright: 2002-present Jason Evans' "$c" || fail "$p: copyright lacks jemalloc's notice"
		grep -q '^License: BSD-2-Clause' "$c" || fail "$p: copyright lacks the licence"
	done
	grep -q 'Daan Leijen' "$T/root/usr/share/doc/hugepolicy/THIRD-PARTY-NOTICES" || fail "no mimalloc notice"
	grep -q 'BSD 2-Clause' "$T/root/usr/share/doc/hugepolicy/LICENSE" || fail "LICENSE is not BSD-2-Clause"
	for s in 1 3 7; do
		MANWIDTH=80 man --warnings -l "$T/root/usr/share/man/man$s/hugepolicy.$s.gz" > /dev/null 2> "$T/err" &&
			[ ! -s "$T/err" ] || { cat "$T/err"; fail "hugepolicy.$s.gz from the package does not render cleanly"; }
	done
	echo "ok: the three packages hold the soname, the link, headers, .pc, CMake files, man pages 1 3 7, licence and notices" ;;
control)
	for d in "$rt" "$dev" "$cli"; do echo "--- $(basename "$d")"; dpkg-deb -f "$d"; done
	field "$rt" Depends | grep -qE '(^|, )libc6 \(>= [0-9.]+\)' || fail "libhugepolicy0 does not depend on libc6 (shlibdeps)"
	[ "$(field "$rt" Recommends)" = libmimalloc2.0 ] || fail "libhugepolicy0 does not recommend libmimalloc2.0"
	[ "$(field "$rt" Section)" = libs ] || fail "libhugepolicy0 section $(field "$rt" Section)"
	[ "$(field "$dev" Section)" = libdevel ] || fail "libhugepolicy-dev section $(field "$dev" Section)"
	[ "$(field "$cli" Section)" = utils ] || fail "hugepolicy section $(field "$cli" Section)"
	for d in "$dev" "$cli"; do
		field "$d" Depends | grep -qF "libhugepolicy0 (= $version-1)" || fail "$(basename "$d") does not depend on libhugepolicy0 (= $version-1)"
	done
	for d in "$rt" "$dev" "$cli"; do
		field "$d" Maintainer | grep -qE '^[^<]+ <[^@>]+@[^>]+>$' || fail "$(basename "$d"): Maintainer '$(field "$d" Maintainer)'"
		[ "$(field "$d" Description | wc -l)" -ge 2 ] || fail "$(basename "$d"): no long description"
		[ "$(field "$d" Architecture)" = "$arch" ] || fail "$(basename "$d"): Architecture"
		[ "$(field "$d" Version)" = "$version-1" ] || fail "$(basename "$d"): Version"
	done
	dpkg-deb -e "$rt" "$T/control"
	grep -qx "libhugepolicy 0 libhugepolicy0 (>= $version-1)" "$T/control/shlibs" || fail "shlibs: $(cat "$T/control/shlibs")"
	grep -q ldconfig "$T/control/postinst" || fail "libhugepolicy0 does not run ldconfig"
	echo "ok: control fields, shlibs and ldconfig as they should be" ;;
runtime)
	dpkg -x "$rt" "$T/root"
	dpkg -x "$cli" "$T/root"
	[ ! -e "$T/root/$lib/libhugepolicy.so" ] || fail "the unversioned link is there without -dev"
	"$T/root/usr/bin/hugepolicy" --help > "$T/help" || fail "hugepolicy --help exited $?"
	grep -q '^usage: hugepolicy' "$T/help" || fail "hugepolicy --help: $(head -n 1 "$T/help")"
	out=$(env -u LD_LIBRARY_PATH -u HUGEPOLICY_LIBRARY "$T/root/usr/bin/hugepolicy" run -- cat /proc/self/maps) ||
		fail "hugepolicy run exited $?"
	loaded=$(printf '%s\n' "$out" | grep -o '/[^ ]*libhugepolicy[^ ]*' | sort -u)
	[ "$loaded" = "$T/root/$lib/libhugepolicy.so.$version" ] ||
		fail "hugepolicy run preloaded '$loaded', expected $T/root/$lib/libhugepolicy.so.$version"
	echo "ok: libhugepolicy0 + hugepolicy alone: --help, and run preloads $loaded" ;;
*) fail "unknown check $what" ;;
esac
