#!/usr/bin/env bash
# The Emacs package as MELPA builds it: package-lint (Debian's elpa-package-lint) on its headers and
# code, then byte-compiled with every warning an error. Exit code = verdict.
set -euo pipefail
cd "$(dirname "$0")/.."
skip() { if [ -n "${CI:-}" ]; then echo "FAIL: $*" >&2; exit 1; fi; echo "SKIP: $*"; exit 0; }
command -v emacs >/dev/null || skip "emacs not installed (apt-get install emacs-nox elpa-eglot)"
[ -d /usr/share/emacs/site-lisp/elpa/package-lint-0.16 ] || compgen -G "/usr/share/emacs/site-lisp/elpa/package-lint-*" >/dev/null \
  || skip "package-lint not installed (apt-get install elpa-package-lint)"
EL=(ccdag.el ccdag-jsonrpc.el ccdag-reading.el ccdag-sessions.el ccdag-resume.el ccdag-folds.el)
echo "== package-lint ${EL[*]}"
emacs --batch -Q -l test/lint.el "${EL[@]}"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cp "${EL[@]}" "$TMP/"
echo "== byte-compile ${EL[*]} (byte-compile-error-on-warn)"
(cd "$TMP" && emacs --batch -Q -L . \
  --eval "(progn (setq package-directory-list '(\"/usr/share/emacs/site-lisp/elpa\")) (package-initialize) (setq byte-compile-error-on-warn t))" \
  -f batch-byte-compile "${EL[@]}")
for f in "${EL[@]}"; do [ -s "$TMP/${f%.el}.elc" ] || { echo "FAIL: no ${f%.el}.elc" >&2; exit 1; }; done
echo "emacs package: package-lint clean, byte-compiled without warnings"
