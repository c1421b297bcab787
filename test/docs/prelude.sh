# Sourced by the docs check (test/docs/session.ts) before a Markdown file's examples, in the same shell.
# It stands between the examples and curl so that an HTTP status the text does not announce fails the
# check, whether the example used -f or not (conventions: docs/examples.md). Expects DOCS_STATE (a
# directory for the failure records) and the associative array __docs_expect ("block-N.sh:LINE" → status).

# The first failure of the session: "<block file>:<line>: <why>". Later ones are consequences.
__docs_record() {
  [[ -s "$DOCS_STATE/failure" ]] || printf '%s\n' "$1" > "$DOCS_STATE/failure"
}

# Called by the ERR trap with the failing command's file, line and exit status.
__docs_failed() {
  __docs_record "${1##*/}:$2: exit status $3"
}

# curl as the reader types it, plus `-q` (no ~/.curlrc) and `-D` (the response head, to read the status).
curl() {
  local head rc=0 status where expected url arg
  head=$(mktemp "$DOCS_STATE/head.XXXXXX")
  command curl -q -D "$head" "$@" || rc=$?
  status=$(sed -n 's/^HTTP\/[0-9.]* \([0-9][0-9][0-9]\).*/\1/p' "$head" | tail -n 1) || true
  rm -f "$head"
  where="${BASH_SOURCE[1]##*/}:${BASH_LINENO[0]}"
  expected="${__docs_expect[$where]:-}"
  url=''
  for arg in "$@"; do [[ $arg == http://* || $arg == https://* ]] && url="$arg"; done
  if [[ -n $expected && $status != "$expected" ]]; then
    printf 'docs check: %s answered %s; the text announces %s\n' "$url" "${status:-no HTTP status}" "$expected" >&2
    __docs_record "$where: $url answered ${status:-no HTTP status}; the text announces $expected"
    return 1
  fi
  if [[ -z $expected && -n $status && $status != 2* ]]; then
    printf 'docs check: %s answered %s, which the text does not announce (a comment "# → %s" after the command would)\n' "$url" "$status" "$status" >&2
    __docs_record "$where: $url answered $status, which the text does not announce"
    return 1
  fi
  return "$rc"
}
