# Sourced by the editor tests (bash). The corpus of real logs is not in the repository: it is
# ../shared/corpus beside the clone, or $CCDAG_CORPUS. A test that needs it and does not find it
# skips (exit 0) naming the missing path and what it would have checked; under CI (CI set, not
# "false" or "0") it fails (exit 1), since CI always has ../shared. Go tests: internal/testcorpus.
CCDAG_CORPUS=${CCDAG_CORPUS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/shared/corpus}
export CCDAG_CORPUS # for the node tests the scripts start

# need_corpus REL WHAT: returns when $CCDAG_CORPUS/REL exists, else ends the test as above.
need_corpus() {
  [ -e "$CCDAG_CORPUS/$1" ] && return 0
  local why="the corpus of real logs is not part of the repository: put ../shared beside the clone or set CCDAG_CORPUS"
  case "${CI:-}" in
    '' | false | 0) echo "SKIP: missing $CCDAG_CORPUS/$1; this test would have checked $2 ($why)"; exit 0 ;;
  esac
  echo "FAIL (CI=$CI, and CI always has ../shared): missing $CCDAG_CORPUS/$1; this test checks $2 ($why)" >&2
  exit 1
}
