# test_package_lib.sh - helpers sourced by tests/test_package_*.sh (sh).
#   T          a fresh temporary directory, removed at exit (realpath: what
#              /proc/self/maps will show)
#   stage MODE TREE   install TREE and set SYSROOT (prefix of every path on
#              disk, "" for none), PREFIX (the prefix the installed files
#              name) and PCDIR (the directory holding hugepolicy.pc):
#                usr     DESTDIR=$T/root, a tree configured for /usr
#                staged  DESTDIR=$T/root, the tree's configured prefix
#                prefix  cmake --install --prefix $T/prefix
#                deb     dpkg -x of the .debs in $DEBS into $T/root
#   pc ARGS    pkg-config for that install only
set -eu
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
T=$(realpath "$(mktemp -d "${TMPDIR:-/tmp}/hp-package.XXXXXX")")
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
MULTIARCH=$(cc -print-multiarch)
unset LD_LIBRARY_PATH LD_PRELOAD PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR

configured_prefix() {
	sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$1/CMakeCache.txt"
}

stage() {
	case $1 in
	usr)
		DESTDIR=$T/root cmake --install "$2" > "$T/install.log" || { cat "$T/install.log"; fail "install"; }
		SYSROOT=$T/root PREFIX=/usr ;;
	staged)
		DESTDIR=$T/root cmake --install "$2" > "$T/install.log" || { cat "$T/install.log"; fail "install"; }
		SYSROOT=$T/root PREFIX=$(configured_prefix "$2") ;;
	prefix)
		cmake --install "$2" --prefix "$T/prefix" > "$T/install.log" || { cat "$T/install.log"; fail "install"; }
		SYSROOT= PREFIX=$T/prefix ;;
	deb)
		for d in $DEBS; do dpkg -x "$d" "$T/root" || fail "dpkg -x $d"; done
		SYSROOT=$T/root PREFIX=/usr ;;
	*) fail "stage: unknown mode $1" ;;
	esac
	PCFILE=$(find "$SYSROOT$PREFIX" -name hugepolicy.pc -path '*/pkgconfig/*' | head -n 1)
	[ -n "$PCFILE" ] || fail "no hugepolicy.pc installed under $SYSROOT$PREFIX"
	PCDIR=$(dirname "$PCFILE")
}

pc() {
	PKG_CONFIG_SYSROOT_DIR=$SYSROOT PKG_CONFIG_LIBDIR=$PCDIR pkg-config "$@"
}
