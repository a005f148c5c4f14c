#!/usr/bin/env bash
# Provides LibTorch C++ headers for the native ops, without installing anything system-wide.
# Usage: torch-headers.sh DEST
#        torch-headers.sh --mirror      prints the Debian mirror this machine's apt uses, and exits
#   Writes DEST/include-dir.txt with the include directory to use.
#   - TORCH_INCLUDE_DIR set and holding torch/csrc/stable/library.h: used as is.
#   - DEST already extracted: reused.
#   - otherwise: Debian sid's libtorch-dev is downloaded with a private apt state and extracted with dpkg -x,
#     from the Debian mirror the machine's apt is configured with (/etc/apt/sources.list, sources.list.d/*.list,
#     and deb822 sources.list.d/*.sources): a local mirror or proxy is used as it is, no host is named here.
#     OPCHECK4J_APT_DIR replaces /etc/apt (for tests).
# Only the stable-ABI headers are used (the .deb is a newer LibTorch than the JavaCPP runtime), so the ops
# are compiled with TORCH_TARGET_VERSION pinned to 2.10.
set -euo pipefail
apt_dir=${OPCHECK4J_APT_DIR:-/etc/apt}

# The first Debian archive among the enabled "deb" sources, as "URI<TAB>SIGNED-BY" (SIGNED-BY may be empty).
# A source is Debian's when its URI path ends in /debian or its suite is a Debian suite; security archives
# (debian-security, */updates, *-security) do not carry libtorch-dev and are skipped.
debian_mirror() {
  local files=()
  [ -f "$apt_dir/sources.list" ] && files+=("$apt_dir/sources.list")
  for f in "$apt_dir"/sources.list.d/*.list "$apt_dir"/sources.list.d/*.sources; do
    [ -f "$f" ] && files+=("$f")
  done
  [ ${#files[@]} -gt 0 ] || return 0
  awk '
    function debian(uri, suites,   n, s, i) {
      if (uri ~ /security/) return 0
      if (uri ~ /\/debian\/?$/) return 1
      n = split(suites, s, /[ \t]+/)
      for (i = 1; i <= n; i++)
        if (s[i] ~ /^(sid|unstable|testing|stable|oldstable|trixie|bookworm|bullseye|buster|forky|duke)(-updates|-backports)?$/) return 1
      return 0
    }
    function flush(   n, u, i) {
      if (types ~ /(^|[ \t])deb([ \t]|$)/ && enabled !~ /^[Nn]o/) {
        n = split(uris, u, /[ \t]+/)
        for (i = 1; i <= n; i++) if (u[i] != "" && debian(u[i], suites)) { print u[i] "\t" signed; found = 1; exit }
      }
      types = ""; uris = ""; suites = ""; signed = ""; enabled = ""
    }
    FNR == 1 { flush(); deb822 = (FILENAME ~ /\.sources$/) }
    /^[ \t]*#/ { next }
    deb822 && /^[ \t]*$/ { flush(); next }
    deb822 {
      key = tolower($1); sub(/:$/, "", key); val = $0; sub(/^[^:]*:[ \t]*/, "", val)
      if (key == "types") types = val; else if (key == "uris") uris = val
      else if (key == "suites") suites = val; else if (key == "signed-by") signed = val
      else if (key == "enabled") enabled = val
      next
    }
    $1 == "deb" {
      line = $0; signed = ""
      if (match(line, /\[[^]]*\]/)) {
        opt = substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH)
        if (match(opt, /signed-by=[^ \t]+/)) signed = substr(opt, RSTART + 10, RLENGTH - 10)
      }
      n = split(line, w, /[ \t]+/)
      if (debian(w[2], w[3])) { print w[2] "\t" signed; found = 1; exit }
    }
    END { if (!found) flush() }
  ' "${files[@]}"
}

if [ "${1:-}" = "--mirror" ]; then
  found=$(debian_mirror)
  [ -n "$found" ] || { echo "torch-headers: no Debian source in $apt_dir/sources.list*; set TORCH_INCLUDE_DIR to LibTorch headers instead" >&2; exit 1; }
  printf '%s\n' "${found%%$'\t'*}"
  exit 0
fi

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
found=$(debian_mirror)
[ -n "$found" ] || { echo "torch-headers: no Debian source in $apt_dir/sources.list*; set TORCH_INCLUDE_DIR to LibTorch headers instead" >&2; exit 1; }
mirror=${found%%$'\t'*}
keyring=${found#*$'\t'}
case "$keyring" in /*) ;; *) keyring=/usr/share/keyrings/debian-archive-keyring.gpg ;; esac
[ -f "$keyring" ] || { echo "torch-headers: $keyring missing (package debian-archive-keyring); or set TORCH_INCLUDE_DIR" >&2; exit 1; }
echo "deb [signed-by=$keyring] $mirror sid main" > "$work/sources.list"
opts=(-o "Dir::State::Lists=$work/lists" -o "Dir::Etc::SourceList=$work/sources.list"
      -o "Dir::Etc::SourceParts=/dev/null" -o "Dir::Cache=$work/cache"
      -o "Acquire::Check-Valid-Until=false" -o "APT::Sandbox::User=root")
echo "torch-headers: downloading libtorch-dev from Debian sid at $mirror (from $apt_dir)"
apt-get "${opts[@]}" update -qq
(cd "$work" && apt-get "${opts[@]}" download libtorch-dev)
deb=$(ls "$work"/libtorch-dev_*.deb | head -n 1)
dpkg -x "$deb" "$dest/root"
rm -rf "$work"
[ -f "$inc/$marker" ] || { echo "torch-headers: $deb has no $marker" >&2; exit 1; }
echo "$inc" > "$dest/include-dir.txt"
echo "torch-headers: extracted $(basename "$deb")"
