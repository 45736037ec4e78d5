;;; cold.el --- one cold open of a 4 MB session log with eglot: diagnostics arrive  -*- lexical-binding: t; -*-
;; Run 10 times by editors/emacs/test/run.sh:  emacs --batch -Q -l cold.el  (exit code = verdict)
;; A new Emacs and a new server each time, eglot's events buffer off (eglot-events-buffer-size 0,
;; where the hang of Emacs 28's jsonrpc showed most: ccdag-jsonrpc.el).  CCDAG_TEST_NO_JSONRPC_FIX=1
;; runs it without the workaround, to see it hang.

(setq package-directory-list '("/usr/share/emacs/site-lisp/elpa"))
(package-initialize)
(add-to-list 'load-path (expand-file-name "editors/emacs" (getenv "CCDAG_ROOT")))
(require 'ccdag)
(when (getenv "CCDAG_TEST_NO_JSONRPC_FIX") (ccdag-jsonrpc-fix nil))
;; A bound for the hang, not a pace: a cold open takes about a second here.
(with-no-warnings (setq jsonrpc-default-request-timeout 30))
(setq eglot-sync-connect t eglot-autoshutdown nil eglot-events-buffer-size 0 eglot-connect-timeout 60)

(let ((t0 (float-time)) (nested 0) (depth 0) ok)
  ;; How often the filter ran inside itself (what lost the stream without the workaround).
  (advice-add 'jsonrpc--process-filter :around
              (lambda (orig proc string)
                (when (> depth 0) (setq nested (1+ nested)))
                (setq depth (1+ depth))
                (unwind-protect (funcall orig proc string) (setq depth (1- depth))))
              '((depth . -100)))
  (find-file (getenv "CCDAG_TEST_BIG"))
  (apply #'eglot (eglot--guess-contact))
  (let ((deadline (+ (float-time) 30)))
    (while (and (not (flymake-diagnostics)) (< (float-time) deadline))
      (accept-process-output nil 0.05)))
  (setq ok (flymake-diagnostics))
  ;; and the connection still answers a request
  (when ok
    (setq ok (condition-case nil
                 (jsonrpc-request (eglot-current-server) :textDocument/foldingRange
                                  (list :textDocument (eglot--TextDocumentIdentifier)))
               (error nil))))
  (princ (format "%s in %.1f s, %d diagnostics, the filter re-entered %d times\n"
                 (if ok "diagnostics and an answer" "HANG: no diagnostics or no answer")
                 (- (float-time) t0) (length (flymake-diagnostics)) nested))
  (let ((server (eglot-current-server)))
    (when server
      (setf (eglot--shutdown-requested server) t)
      (delete-process (jsonrpc--process server))))
  (kill-emacs (if ok 0 1)))
