#!/usr/bin/env bash
# Builds build/enav_<VERSION>_amd64.deb from a staging tree in build/deb/.
# Usage: packaging/deb/build.sh [BUILD_DIR]   (run from the repository root;
# `make deb` builds build/enav first and then runs this).
set -euo pipefail

BUILD=${1:-build}
VERSION=$(cat VERSION)
ARCH=amd64
PKG=$BUILD/deb
OUT=$BUILD/enav_${VERSION}_${ARCH}.deb
SRC=packaging

# The changelog's newest entry must name this version.
clv=$(sed -n '1s/^enav (\([^)]*\)).*/\1/p' "$SRC/deb/changelog")
[ "$clv" = "$VERSION" ] || { echo "deb: packaging/deb/changelog is at $clv, VERSION is $VERSION: add an entry" >&2; exit 1; }
[ -x "$BUILD/enav" ] || { echo "deb: $BUILD/enav is missing; run make first" >&2; exit 1; }

rm -rf "$PKG"
install -d -m 0755 "$PKG/DEBIAN" "$PKG/usr/sbin" "$PKG/lib/systemd/system" "$PKG/etc/enav" \
	"$PKG/usr/share/man/man8" "$PKG/usr/share/doc/enav"

# The binary, stripped as dh_strip would (no debug info, .comment or .note).
install -m 0755 "$BUILD/enav" "$PKG/usr/sbin/enav"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$PKG/usr/sbin/enav"

install -m 0644 "$SRC/systemd/enav.service" "$PKG/lib/systemd/system/enav.service"
install -m 0644 config/enav.example.yaml "$PKG/etc/enav/enav.yaml"
gzip -9n -c "$SRC/enav.8" >"$PKG/usr/share/man/man8/enav.8.gz"
install -m 0644 "$SRC/deb/copyright" "$PKG/usr/share/doc/enav/copyright"
gzip -9n -c "$SRC/deb/changelog" >"$PKG/usr/share/doc/enav/changelog.Debian.gz"
chmod 0644 "$PKG/usr/share/man/man8/enav.8.gz" "$PKG/usr/share/doc/enav/changelog.Debian.gz"

install -d -m 0755 "$PKG/usr/share/lintian/overrides"
install -m 0644 "$SRC/deb/lintian-overrides" "$PKG/usr/share/lintian/overrides/enav"

install -m 0644 "$SRC/deb/conffiles" "$PKG/DEBIAN/conffiles"
for s in postinst prerm postrm; do
	install -m 0755 "$SRC/deb/$s" "$PKG/DEBIAN/$s"
done

# Depends: from the binary's NEEDED libraries through dpkg-shlibdeps (which
# needs a debian/control to exist: a throwaway one in a scratch directory),
# else the list written by hand.
depends=
if command -v dpkg-shlibdeps >/dev/null; then
	scratch=$(mktemp -d)
	mkdir -p "$scratch/debian"
	printf 'Source: enav\n\nPackage: enav\nArchitecture: amd64\n' >"$scratch/debian/control"
	cp "$PKG/usr/sbin/enav" "$scratch/enav"
	if (cd "$scratch" && dpkg-shlibdeps -O enav 2>/dev/null) >"$scratch/out"; then
		depends=$(sed -n 's/^shlibs:Depends=//p' "$scratch/out")
	fi
	rm -rf "$scratch"
fi
if [ -z "$depends" ]; then
	echo "deb: dpkg-shlibdeps unavailable or failed; using the hand-written Depends" >&2
	depends="libbpf1, libc6, libcurl4, libelf1, libjansson4, libmicrohttpd12, libyaml-0-2, zlib1g"
fi

size=$(du -k -s --exclude=DEBIAN "$PKG" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@DEPENDS@/$depends/" \
	-e "s/@SIZE@/$size/" "$SRC/deb/control.in" >"$PKG/DEBIAN/control"
chmod 0644 "$PKG/DEBIAN/control"

dpkg-deb --build --root-owner-group "$PKG" "$OUT" >/dev/null
echo "$OUT"
