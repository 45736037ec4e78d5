;;; ccdag-resume.el --- Preview what claude --resume loads of a session  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 the ccdag contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the ccdag package (loaded by ccdag.el).  docs/spec.md §13 in Emacs:
;;
;; M-x ccdag-resume   what `claude --resume' sends of this session (request ccdag/resumePreview,
;;                    the text `ccdag resume' prints): the Claude Code version assumed to load it
;;                    and why, the records sent in order, where the chain breaks and what is lost,
;;                    what is dropped (calls without results, glued records, API errors), in a
;;                    read-only buffer beside the log, asked again when the log changes.  RET on
;;                    a line that names a record jumps to it in the log; g asks again.
;;
;; The loader assumed is `ccdag-claude-version' (ccdag.el), "" for the newest version found in
;; the logs under the session's config folder.

;;; Code:

(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(require 'ccdag-reading) ; the side buffer
(declare-function ccdag--text-document "ccdag" ())

(defvar ccdag-resume-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "RET") #'ccdag-resume-jump)
    (define-key m (kbd "g") #'ccdag-side-refresh)
    m)
  "Keys of a ccdag resume preview buffer.")

(define-derived-mode ccdag-resume-mode special-mode "ccdag-resume"
  "What `claude --resume' sends of a session.
RET on a line naming a record jumps to it in the log; g fetches it again."
  ;; Wrapped, not truncated: the key words of a long line ("lost", what is dropped) stay on screen.
  (setq-local truncate-lines nil)
  (setq-local word-wrap t)
  (setq-local bidi-paragraph-direction 'left-to-right))

(defalias 'ccdag-resume-refresh #'ccdag-side-refresh)

(defun ccdag--resume-fetch (buf)
  "Ask the server for the resume preview shown in BUF."
  (let ((res (ccdag--side-request buf :ccdag/resumePreview
                                  (lambda () (list :textDocument (ccdag--text-document))))))
    (when res (ccdag--side-fill buf (plist-get res :text) (plist-get res :lines)))))

;;;###autoload
(defun ccdag-resume ()
  "Show what `claude --resume' will load of this session log, beside it.
The preview follows the log: it is asked again shortly after the log changes."
  (interactive)
  (ccdag--side-open (format "*ccdag resume: %s*" (buffer-name)) #'ccdag-resume-mode #'ccdag--resume-fetch))

(defun ccdag--resume-entry (line)
  "The link of 0-based preview LINE, or nil when that line names no record."
  (seq-find (lambda (e) (= (plist-get e :preview) line)) ccdag--side-lines))

(defun ccdag-resume-jump ()
  "Go to the log record the preview line at point names."
  (interactive)
  (let ((e (ccdag--resume-entry (1- (line-number-at-pos)))))
    (unless e (user-error "This line names no record of the log"))
    (ccdag--side-goto e)))

(provide 'ccdag-resume)
;;; ccdag-resume.el ends here
