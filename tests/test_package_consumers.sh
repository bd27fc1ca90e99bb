#!/bin/sh
# test_package_consumers.sh MODE TREE SRC VERSION [DEB...] - install TREE
# (MODE: usr, prefix or deb, see test_package_lib.sh), then build the C and
# C++ consumers of SRC/tests/consumer against that install only, through
# find_package(hugepolicy) and pkg_check_modules, and by hand with
# `cc $(pkg-config --cflags --libs hugepolicy)`; run each without
# LD_LIBRARY_PATH: each must load libhugepolicy.so.0 from the install and
# get the backend asked for.
. "$(dirname "$0")/test_package_lib.sh"
mode=$1 tree=$2 src=$3 version=$4
shift 4
DEBS="$*"
stage "$mode" "$tree"
libdir=$SYSROOT$(PKG_CONFIG_LIBDIR=$PCDIR pkg-config --variable=libdir hugepolicy)

# CMake: the install is the only place to look (CMAKE_PREFIX_PATH first,
# the system's own hugepolicy, if any, must not be taken)
PKG_CONFIG_SYSROOT_DIR=$SYSROOT PKG_CONFIG_LIBDIR=$PCDIR \
	cmake -S "$src/tests/consumer" -B "$T/consumer" -DCMAKE_PREFIX_PATH="$SYSROOT$PREFIX" \
	-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF > "$T/consumer.log" 2>&1 ||
	{ cat "$T/consumer.log"; fail "consumer configure"; }
found=$(sed -n 's/^hugepolicy_DIR:PATH=//p' "$T/consumer/CMakeCache.txt")
case $found in "$SYSROOT$PREFIX"/*) ;; *) fail "find_package found $found, not the install under $SYSROOT$PREFIX" ;; esac
echo "find_package(hugepolicy): $found"
cmake --build "$T/consumer" -j2 > "$T/build.log" 2>&1 || { cat "$T/build.log"; fail "consumer build"; }

# pkg-config by hand; the program's rpath is the consumer's choice
cc -o "$T/consumer/consumer_c_cc" "$src/tests/consumer/consumer.c" $(pc --cflags --libs hugepolicy) \
	-Wl,-rpath,"$libdir" || fail "cc with pkg-config's flags"
c++ -o "$T/consumer/consumer_cxx_cc" "$src/tests/consumer/consumer.cc" $(pc --cflags --libs hugepolicy) \
	-Wl,-rpath,"$libdir" || fail "c++ with pkg-config's flags"

n=0
for exe in consumer_c_cmake consumer_cxx_cmake consumer_c_pkgconfig consumer_cxx_pkgconfig \
		consumer_c_cc consumer_cxx_cc; do
	out=$(env -u LD_LIBRARY_PATH -u LD_PRELOAD HUGEPOLICY_BACKEND=jemalloc HUGEPOLICY_PAGES=off \
		"$T/consumer/$exe") || fail "$exe exited $?: $out"
	echo "$exe: $out"
	case $out in
	"version=$version backend=jemalloc pages=off stats=0 allocated=known lib=$libdir/libhugepolicy.so.0"*) ;;
	*) fail "$exe: expected version=$version backend=jemalloc pages=off stats=0 allocated=known lib=$libdir/libhugepolicy.so.0..." ;;
	esac
	n=$((n + 1))
done
echo "ok: $n consumers (C, C++; find_package, pkg_check_modules, cc) built against the $mode install and ran from it"
