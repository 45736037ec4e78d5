;;; lint.el --- package-lint and byte-compilation of the ccdag package, in batch  -*- lexical-binding: t; -*-

;; Run by test/lint.sh.  CI is offline: GNU ELPA's eglot (Debian's elpa-eglot here) is registered as
;; available from the installed copy, which is what package-lint asks of a dependency.

;;; Code:

(setq package-directory-list '("/usr/share/emacs/site-lisp/elpa"))
(package-initialize)
(require 'package-lint)
(defun ccdag-lint--offline-archive (&rest _)
  "Register the installed dependencies as available (package-lint re-runs `package-initialize')."
  (dolist (name '(eglot))
    (let ((desc (cadr (assq name package-alist))))
      (unless desc (error "%s is not installed" name))
      (unless (assq name package-archive-contents)
        (push (list name desc) package-archive-contents)))))
(advice-add 'package-initialize :after #'ccdag-lint--offline-archive)
(ccdag-lint--offline-archive)
;; Debian's package-lint 0.16 predates Emacs 28's release (2022) and warns that depending on it
;; "makes the package uninstallable in all released Emacs versions": that one stale warning is
;; dropped; every other warning and error fails.
(defun ccdag-lint--drop-stale (orig type message &rest args)
  "Call ORIG with TYPE, MESSAGE and ARGS unless MESSAGE is the stale Emacs 28 warning."
  (unless (equal message "This makes the package uninstallable in all released Emacs versions.")
    (apply orig type message args)))
(advice-add 'package-lint--error-at-point :around #'ccdag-lint--drop-stale)
(setq package-lint-main-file "ccdag.el")
(package-lint-batch-and-exit)
;;; lint.el ends here
