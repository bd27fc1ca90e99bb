#!/bin/sh
# test_layers.sh SRC - no #include runs back up the library's rooms.
#
# The rooms, bottom to top: policy/ (0), pages/ (1), backends/ and
# region/ (2, side by side), integration/ (3).  A file may include a
# header of its own room or of a lower one; a header of a higher room, or
# of the other room on its level, is a failure named by file and header.
# Every `#include "..."` of every .c and .h under those rooms is resolved
# as the compiler does: next to the file, else in include/ (the public
# header, below every room); one that resolves nowhere is a failure too,
# so that a path the scan cannot place is never passed over.
# Exit 0 when every include runs down or stays, 1 otherwise.
set -u
src=${1:?usage: test_layers.sh SRC}
cd "$src" || exit 2

rank() {
	case $1 in
	policy) echo 0 ;;
	pages) echo 1 ;;
	backends | region) echo 2 ;;
	integration) echo 3 ;;
	include) echo -1 ;;
	*) echo 9 ;;
	esac
}

bad=0
checked=0
rooms=$(for d in policy pages backends region integration; do [ -d "$d" ] && echo "$d"; done)
# shellcheck disable=SC2086
for f in $(find $rooms -name '*.[ch]' | sort); do
	room=${f%%/*}
	dir=$(dirname "$f")
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		checked=$((checked + 1))
		if [ -e "$dir/$inc" ]; then
			target=$(realpath -m --relative-to=. "$dir/$inc")
		elif [ -e "include/$inc" ]; then
			target=include/$inc
		else
			echo "$f: #include \"$inc\": found neither next to it nor in include/"
			bad=1
			continue
		fi
		troom=${target%%/*}
		[ "$troom" = "$room" ] && continue
		r=$(rank "$room")
		t=$(rank "$troom")
		if [ "$t" -ge "$r" ]; then
			echo "$f ($room/) includes $target ($troom/): an include may only run down"
			bad=1
		fi
	done
done
if [ "$checked" -eq 0 ]; then
	echo "no #include found under policy/ pages/ backends/ region/ integration/ of $src"
	exit 1
fi
[ "$bad" -eq 0 ] && echo "$checked includes checked: every one runs down or stays in its room"
exit "$bad"
