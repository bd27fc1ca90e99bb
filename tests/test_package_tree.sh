#!/bin/sh
# test_package_tree.sh SRC TREE - configure (once) and build a tree of SRC
# for CMAKE_INSTALL_PREFIX=/usr, as a distribution builds it: Debian's
# multiarch libdir, the .debs' layout.  Only what is installed is built
# (the library, the CLI, the man pages); CMAKE_SKIP_INSTALL_ALL_DEPENDENCY
# keeps cpack's preinstall from building the rest.
set -eu
src=$1 tree=$2
if [ ! -f "$tree/CMakeCache.txt" ]; then
	cmake -S "$src" -B "$tree" -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF \
		-DHUGEPOLICY_WERROR=OFF -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON > "$tree.configure.log" 2>&1 ||
		{ cat "$tree.configure.log"; echo "FAIL: configure for /usr"; exit 1; }
fi
cmake --build "$tree" -j2 --target hugepolicy hugepolicy-cli hugepolicy_man
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$tree/CMakeCache.txt")
echo "configured for /usr: CMAKE_INSTALL_LIBDIR=$libdir"
