#!/usr/bin/env bash
# `make release-snapshot`: goreleaser release --snapshot --clean (.goreleaser.yaml), then checks what
# it made: an archive per target (zip on windows, tar.gz elsewhere) holding ccdag or ccdag.exe
# built for that target, checksums.txt matching every archive, and the version stamped.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/goreleaser.sh release --snapshot --clean
out=dist/goreleaser
fail() { echo "release-snapshot: $*" >&2; exit 1; }
[ -s "$out/checksums.txt" ] || fail "no $out/checksums.txt"
(cd "$out" && sha256sum --check --strict checksums.txt) || fail "checksums.txt does not match the archives"
ver=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$out/metadata.json" | head -1)
[ -n "$ver" ] || fail "no version in $out/metadata.json"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64; do
  os=${t%_*}
  if [ "$os" = windows ]; then a=$out/ccdag_$t.zip; exe=ccdag.exe; else a=$out/ccdag_$t.tar.gz; exe=ccdag; fi
  [ -s "$a" ] || fail "no archive $a"
  grep -q " $(basename "$a")\$" "$out/checksums.txt" || fail "$(basename "$a") is not in checksums.txt"
  mkdir -p "$tmp/$t"
  if [ "$os" = windows ]; then unzip -q "$a" -d "$tmp/$t"; else tar -xzf "$a" -C "$tmp/$t"; fi
  for f in "$exe" README.md LICENSE; do [ -f "$tmp/$t/$f" ] || fail "$(basename "$a") has no $f"; done
  # The target's own executable format, and the version stamped into it.
  case $t in
    linux_amd64) magic='7f454c46' m=x86-64 ;; linux_arm64) magic='7f454c46' m=aarch64 ;;
    darwin_*) magic='cffaedfe' ;; windows_*) magic='4d5a' ;;
  esac
  head -c 4 "$tmp/$t/$exe" | od -An -tx1 | tr -d ' \n' | grep -q "^$magic" || fail "$t: $exe is not a $os executable"
  grep -qa "$ver" "$tmp/$t/$exe" || fail "$t: the version $ver is not stamped into $exe"
done
if [ "$(uname -s)/$(uname -m)" = Linux/x86_64 ]; then
  v=$("$tmp/linux_amd64/ccdag" version)
  case $v in *"$ver"*) ;; *) fail "ccdag version says \"$v\", not $ver" ;; esac
  echo "release-snapshot: $v"
fi
# The mason-registry entry names the same archives.
n=0
for f in $(sed -n 's/.*file: ccdag_\(.*\)$/\1/p' packaging/mason/package.yaml); do
  [ -s "$out/ccdag_$f" ] || fail "packaging/mason/package.yaml names ccdag_$f, which the release does not make"
  n=$((n + 1))
done
[ $n -eq 6 ] || fail "packaging/mason/package.yaml names $n archives, not 6"
echo "release-snapshot: 6 archives, checksums match, version $ver stamped ($out)"
