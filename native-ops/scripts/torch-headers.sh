#!/usr/bin/env bash
# Provides LibTorch C++ headers for the native ops, without installing anything system-wide.
# Usage: torch-headers.sh DEST
#   Writes DEST/include-dir.txt with the include directory to use.
#   - TORCH_INCLUDE_DIR set and holding torch/csrc/stable/library.h: used as is.
#   - DEST already extracted: reused.
#   - otherwise: Debian sid's libtorch-dev is downloaded with a private apt state and extracted with dpkg -x.
# Only the stable-ABI headers are used (the .deb is a newer LibTorch than the JavaCPP runtime), so the ops
# are compiled with TORCH_TARGET_VERSION pinned to 2.10.
set -euo pipefail
dest=${1:?usage: torch-headers.sh DEST}
marker=torch/csrc/stable/library.h
mkdir -p "$dest"

if [ -n "${TORCH_INCLUDE_DIR:-}" ]; then
  if [ -f "$TORCH_INCLUDE_DIR/$marker" ]; then
    echo "$TORCH_INCLUDE_DIR" > "$dest/include-dir.txt"
    echo "torch-headers: using TORCH_INCLUDE_DIR=$TORCH_INCLUDE_DIR"
    exit 0
  fi
  echo "torch-headers: TORCH_INCLUDE_DIR=$TORCH_INCLUDE_DIR has no $marker" >&2
  exit 1
fi

inc="$dest/root/usr/include"
if [ -f "$inc/$marker" ]; then
  echo "$inc" > "$dest/include-dir.txt"
  echo "torch-headers: reusing $inc"
  exit 0
fi

for tool in apt-get dpkg; do
  command -v "$tool" >/dev/null || { echo "torch-headers: $tool not found; set TORCH_INCLUDE_DIR to LibTorch headers instead" >&2; exit 1; }
done

work="$dest/apt"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || { echo "torch-headers: $keyring missing (package debian-archive-keyring); or set TORCH_INCLUDE_DIR" >&2; exit 1; }
echo "deb [signed-by=$keyring] http://deb.debian.org/debian sid main" > "$work/sources.list"
opts=(-o "Dir::State::Lists=$work/lists" -o "Dir::Etc::SourceList=$work/sources.list"
      -o "Dir::Etc::SourceParts=/dev/null" -o "Dir::Cache=$work/cache"
      -o "Acquire::Check-Valid-Until=false" -o "APT::Sandbox::User=root")
echo "torch-headers: downloading libtorch-dev from Debian sid"
apt-get "${opts[@]}" update -qq
(cd "$work" && apt-get "${opts[@]}" download libtorch-dev)
deb=$(ls "$work"/libtorch-dev_*.deb | head -n 1)
dpkg -x "$deb" "$dest/root"
rm -rf "$work"
[ -f "$inc/$marker" ] || { echo "torch-headers: $deb has no $marker" >&2; exit 1; }
echo "$inc" > "$dest/include-dir.txt"
echo "torch-headers: extracted $(basename "$deb")"
