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
;;                    read-only buffer beside the log.  RET on a line that names a record jumps to
;;                    it in the log; g asks again.
;;
;; The loader assumed is `ccdag-claude-version' (ccdag.el), "" for the newest version found in
;; the logs under the session's config folder.

;;; Code:

(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(declare-function ccdag--text-document "ccdag" ())
(declare-function ccdag--uri-to-path "ccdag" (uri))

(defvar-local ccdag--resume-lines nil
  "The preview's links: a vector of (:preview L :uri U :line N), 0-based.")
(defvar-local ccdag--resume-log nil "The log buffer a resume preview buffer shows.")

(defvar ccdag-resume-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "RET") #'ccdag-resume-jump)
    (define-key m (kbd "g") #'ccdag-resume-refresh)
    m)
  "Keys of a ccdag resume preview buffer.")

(define-derived-mode ccdag-resume-mode special-mode "ccdag-resume"
  "What `claude --resume' sends of a session.
RET on a line naming a record jumps to it in the log; g fetches it again."
  (setq-local truncate-lines t)
  (setq-local bidi-paragraph-direction 'left-to-right))

(defun ccdag--resume-fill (buf result)
  "Put RESULT (a ccdag/resumePreview answer) into BUF, keeping point's line."
  (with-current-buffer buf
    (let ((inhibit-read-only t)
          (line (line-number-at-pos)))
      (erase-buffer)
      (insert (or (plist-get result :text) ""))
      (setq ccdag--resume-lines (plist-get result :lines))
      (goto-char (point-min))
      (forward-line (1- line)))))

(defun ccdag--resume-fetch (buf)
  "Ask the server for the resume preview shown in BUF."
  (let ((log (buffer-local-value 'ccdag--resume-log buf)))
    (when (and (buffer-live-p log) (buffer-live-p buf))
      (with-current-buffer log
        (let ((server (eglot-current-server)))
          (unless server (user-error "No ccdag server for this buffer (M-x eglot)"))
          (ccdag--resume-fill
           buf (jsonrpc-request server :ccdag/resumePreview
                                (list :textDocument (ccdag--text-document)))))))))

(defun ccdag-resume-refresh ()
  "Fetch the resume preview of this buffer's log again."
  (interactive)
  (ccdag--resume-fetch (current-buffer)))

;;;###autoload
(defun ccdag-resume ()
  "Show what `claude --resume' will load of this session log, beside it."
  (interactive)
  (let* ((log (current-buffer))
         (buf (get-buffer-create (format "*ccdag resume: %s*" (buffer-name log)))))
    (unless (eglot-current-server) (user-error "No ccdag server for this buffer (M-x eglot)"))
    (with-current-buffer buf
      (ccdag-resume-mode)
      (setq ccdag--resume-log log))
    (ccdag--resume-fetch buf)
    ;; Selected: RET there jumps; left in the log, RET would edit it.
    (pop-to-buffer buf '(display-buffer-pop-up-window (inhibit-same-window . t)))
    buf))

(defun ccdag--resume-entry (line)
  "The link of 0-based preview LINE, or nil when that line names no record."
  (seq-find (lambda (e) (= (plist-get e :preview) line)) ccdag--resume-lines))

(defun ccdag-resume-jump ()
  "Go to the log record the preview line at point names."
  (interactive)
  (let ((e (ccdag--resume-entry (1- (line-number-at-pos)))))
    (unless e (user-error "This line names no record of the log"))
    (let ((file (ccdag--uri-to-path (plist-get e :uri))))
      (pop-to-buffer (or (find-buffer-visiting file) (find-file-noselect file)))
      (goto-char (point-min))
      (forward-line (plist-get e :line)))))

(provide 'ccdag-resume)
;;; ccdag-resume.el ends here
