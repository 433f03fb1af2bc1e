# ensure_venv DIR REQUIREMENTS NAME: creates the Python venv DIR when missing
# and installs REQUIREMENTS into it when they changed since the last install
# (a copy of them is the stamp). Sourced by setup.sh and setup-torch.sh.
ensure_venv() {
  local venv=$1 requirements=$2 name=$3
  local stamp="$venv/.requirements.stamp"
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
  fi
  if [ ! -f "$stamp" ] || ! cmp -s "$requirements" "$stamp"; then
    echo "setup: installing Python packages into $name"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
    cp "$requirements" "$stamp"
  fi
}
