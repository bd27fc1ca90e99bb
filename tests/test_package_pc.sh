#!/bin/sh
# test_package_pc.sh MODE TREE - install TREE (MODE: usr, staged or prefix,
# see test_package_lib.sh) and check hugepolicy.pc: installed in the libdir
# (usr: Debian's multiarch lib/<triplet>), naming the install's prefix and
# never the DESTDIR stage, and its --cflags/--libs pointing at the installed
# header and library.
. "$(dirname "$0")/test_package_lib.sh"
mode=$1 tree=$2
stage "$mode" "$tree"
echo "hugepolicy.pc at $PCFILE:"
cat "$PCFILE"

if [ "$mode" = usr ]; then
	[ "$PCDIR" = "$T/root/usr/lib/$MULTIARCH/pkgconfig" ] ||
		fail "expected the .pc in /usr/lib/$MULTIARCH/pkgconfig, found $PCDIR"
fi
flags=$(pc --cflags --libs hugepolicy)
echo "pkg-config --cflags --libs hugepolicy: $flags"
# pkg-config drops -I/usr/include and -L of the default libdir (system dirs)
case $flags in *"-lhugepolicy"*) ;; *) fail "no -lhugepolicy in '$flags'" ;; esac
for f in $flags; do
	case $f in
	-I*) [ -f "${f#-I}/hugepolicy.h" ] || fail "$f holds no hugepolicy.h" ;;
	-L*) [ -e "${f#-L}/libhugepolicy.so" ] || fail "$f holds no libhugepolicy.so" ;;
	-lhugepolicy) ;;
	*) fail "unexpected flag $f" ;;
	esac
done
# and a compile + link with exactly those flags finds both
printf '#include <hugepolicy.h>\nint main(void) { return hugepolicy_version()[0] ? 0 : 1; }\n' > "$T/t.c"
cc -o "$T/t" "$T/t.c" $(pc --cflags --libs hugepolicy) || fail "cc with pkg-config's flags failed"
# the variables as written (no sysroot): what a consumer on the target sees
var() { PKG_CONFIG_LIBDIR=$PCDIR pkg-config --variable="$1" hugepolicy; }
[ "$(var prefix)" = "$PREFIX" ] || fail "prefix=$(var prefix), expected $PREFIX"
if [ -n "$SYSROOT" ] && grep -qF "$SYSROOT" "$PCFILE"; then
	fail "the DESTDIR stage $SYSROOT leaked into hugepolicy.pc"
fi
libdir=$SYSROOT$(var libdir)
includedir=$SYSROOT$(var includedir)
echo "on disk: libdir=$libdir includedir=$includedir"
[ "$libdir" = "$(dirname "$PCDIR")" ] || fail "libdir $libdir is not the directory above the .pc ($PCDIR)"
[ -f "$includedir/hugepolicy.h" ] || fail "no hugepolicy.h in includedir $includedir"
[ -e "$libdir/libhugepolicy.so" ] || fail "no libhugepolicy.so in libdir $libdir"
[ -e "$libdir/libhugepolicy.so.0" ] || fail "no libhugepolicy.so.0 in libdir $libdir"

echo "ok: $mode install gives a correct hugepolicy.pc"
