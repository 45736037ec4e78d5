;;; ccdag-reading.el --- read a Claude Code session: transcript, inlay hints  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 the ccdag contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the ccdag package (loaded by ccdag.el).  docs/spec.md §7 in Emacs:
;;
;; M-x ccdag-transcript   the session as Markdown (request ccdag/transcript) in a read-only buffer
;;                        beside the log; RET on any line jumps to the log line it comes from.  It
;;                        follows the log: edits to the log buffer (an auto-revert tail included)
;;                        fetch it again.  With a prefix argument, abandoned branches too.
;;
;; Inlay hints: eglot shows them from eglot 1.15 (Emacs 30's built-in eglot; eglot-inlay-hints-mode,
;; on by default).  Debian bookworm's elpa-eglot is 1.9, which has no inlay hints: there the server's
;; hints are not shown (the test checks the server answers them all the same).  eglot has no code
;; lens or folding-range support in any version: `ccdag-lens-mode' draws the lenses' figures above
;; their records, and ccdag-folds.el folds from the server's folding ranges.

;;; Code:

(require 'eglot)
(require 'jsonrpc)
(declare-function ccdag--text-document "ccdag" ())
(declare-function ccdag--uri-to-path "ccdag" (uri))

(defvar-local ccdag--transcript-lines nil
  "The transcript's line map, by transcript line.
A vector of (:transcript L :uri U :line N).")
(defvar-local ccdag--transcript-log nil "The log buffer a transcript buffer shows.")
(defvar-local ccdag--transcript-all nil "Whether the transcript shows abandoned branches.")
(defvar-local ccdag--transcript-timer nil "A pending refresh of this log's transcript.")
(defvar-local ccdag--transcript-buffer nil "In a log buffer: its transcript buffer.")

(defvar ccdag-transcript-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "RET") #'ccdag-transcript-jump)
    (define-key m (kbd "g") #'ccdag-transcript-refresh)
    (define-key m (kbd "q") #'quit-window)
    m)
  "Keys of a ccdag transcript buffer.")

(define-derived-mode ccdag-transcript-mode special-mode "ccdag-transcript"
  "A session's transcript.
RET jumps to the log line of the line at point; g fetches it again."
  (setq-local truncate-lines nil)
  (setq-local bidi-paragraph-direction 'left-to-right))

(defun ccdag--transcript-fill (buf result)
  "Put RESULT (a ccdag/transcript answer) into BUF, keeping point's line."
  (with-current-buffer buf
    (let ((inhibit-read-only t)
          (line (line-number-at-pos)))
      (erase-buffer)
      (insert (plist-get result :markdown))
      (setq ccdag--transcript-lines (plist-get result :lines))
      (goto-char (point-min))
      (forward-line (1- line)))))

(defun ccdag--transcript-fetch (buf)
  "Ask the server for the transcript shown in BUF."
  (let ((log (buffer-local-value 'ccdag--transcript-log buf)))
    (when (and (buffer-live-p log) (buffer-live-p buf))
      (with-current-buffer log
        (let ((server (eglot-current-server)))
          (unless server (user-error "No ccdag server for this buffer (M-x eglot)"))
          (ccdag--transcript-fill
           buf (jsonrpc-request server :ccdag/transcript
                                (list :textDocument (ccdag--text-document)
                                      :allBranches (if (buffer-local-value 'ccdag--transcript-all buf) t :json-false)))))))))

(defun ccdag-transcript-refresh ()
  "Fetch the transcript of this buffer's log again."
  (interactive)
  (ccdag--transcript-fetch (current-buffer)))

(defun ccdag--transcript-after-change (&rest _)
  "In a log buffer: fetch its transcript again, shortly (edits come in bursts)."
  (let ((buf ccdag--transcript-buffer))
    (if (not (buffer-live-p buf))
        (remove-hook 'after-change-functions #'ccdag--transcript-after-change t)
      (when (timerp ccdag--transcript-timer) (cancel-timer ccdag--transcript-timer))
      (setq ccdag--transcript-timer
            (run-with-idle-timer 0.3 nil (lambda () (ignore-errors (ccdag--transcript-fetch buf))))))))

(defun ccdag-transcript (&optional all)
  "Show the transcript of this session log beside it.
With a prefix argument ALL, abandoned branches too."
  (interactive "P")
  (let* ((log (current-buffer))
         (name (format "*ccdag transcript: %s*" (buffer-name log)))
         (buf (get-buffer-create name)))
    (unless (eglot-current-server) (user-error "No ccdag server for this buffer (M-x eglot)"))
    (with-current-buffer buf
      (ccdag-transcript-mode)
      (setq ccdag--transcript-log log
            ccdag--transcript-all (and all t)))
    (setq ccdag--transcript-buffer buf)
    (add-hook 'after-change-functions #'ccdag--transcript-after-change nil t)
    (ccdag--transcript-fetch buf)
    ;; Selected: RET there jumps; left in the log, RET would edit it.
    (pop-to-buffer buf '(display-buffer-pop-up-window (inhibit-same-window . t)))
    buf))

(defun ccdag--transcript-entry (line)
  "The line map entry of 0-based transcript LINE: the last one at or before it."
  (let (best)
    (seq-doseq (e ccdag--transcript-lines)
      (when (<= (plist-get e :transcript) line) (setq best e)))
    best))

(defun ccdag-transcript-jump ()
  "Go to the log line the transcript line at point comes from."
  (interactive)
  (let ((e (ccdag--transcript-entry (1- (line-number-at-pos)))))
    (unless e (user-error "No log line for this line"))
    (let ((file (ccdag--uri-to-path (plist-get e :uri))))
      (pop-to-buffer (or (find-buffer-visiting file) (find-file-noselect file)))
      (goto-char (point-min))
      (forward-line (plist-get e :line)))))



;; Per-turn figures (docs/spec.md §10): eglot shows no code lens in any version, so the server's
;; lenses (each turn's tool calls, sub-agents, tokens, cost and duration; the session's totals on
;; line 1) are drawn as a line of their own above the record they belong to, as overlays.  They
;; follow the log: fetched again shortly after a change.

(defface ccdag-lens '((t :inherit shadow)) "Face of the per-turn figures above a turn's record." :group 'ccdag)

(defvar-local ccdag--lens-overlays nil "The figure overlays of this log buffer.")
(defvar-local ccdag--lens-timer nil "A pending fetch of the figures.")

(defun ccdag--lens-draw (buf lenses)
  "Draw LENSES (textDocument/codeLens's answer) in BUF, replacing what was there."
  (when (buffer-live-p buf)
    (with-current-buffer buf
      (mapc #'delete-overlay ccdag--lens-overlays)
      (setq ccdag--lens-overlays nil)
      (let ((by-line (make-hash-table)))
        (seq-doseq (l lenses)
          (let ((line (plist-get (plist-get (plist-get l :range) :start) :line))
                (title (plist-get (plist-get l :command) :title)))
            (when (and (integerp line) (stringp title))
              (puthash line (append (gethash line by-line) (list title)) by-line))))
        (save-excursion
          (maphash (lambda (line titles)
                     (goto-char (point-min))
                     (when (= 0 (forward-line line))
                       (let ((ov (make-overlay (point) (point))))
                         (overlay-put ov 'ccdag-lens t)
                         (overlay-put ov 'before-string
                                      (propertize (concat (mapconcat #'identity titles " | ") "\n") 'face 'ccdag-lens))
                         (push ov ccdag--lens-overlays))))
                   by-line))))))

(defun ccdag-lens-refresh (&optional tries)
  "Fetch this log's per-turn figures and draw them above their records.
The figures are the server's code lenses.  Asked before eglot has
opened the document, the server refuses: asked again, TRIES times at most."
  (interactive)
  (let ((buf (current-buffer))
        (server (eglot-current-server))
        (tries (or tries 5)))
    (when server
      (jsonrpc-async-request server :textDocument/codeLens
                             (list :textDocument (ccdag--text-document))
                             :success-fn (lambda (res) (ccdag--lens-draw buf res))
                             :error-fn (lambda (_)
                                         (when (> tries 1)
                                           (run-with-timer 0.5 nil (lambda ()
                                                                     (when (buffer-live-p buf)
                                                                       (with-current-buffer buf (ccdag-lens-refresh (1- tries))))))))
                             :timeout-fn #'ignore))))

(defun ccdag--lens-after-change (&rest _)
  "Fetch the figures again, shortly (edits and appends come in bursts)."
  (when (timerp ccdag--lens-timer) (cancel-timer ccdag--lens-timer))
  (let ((buf (current-buffer)))
    (setq ccdag--lens-timer
          (run-with-timer 0.5 nil (lambda () (when (buffer-live-p buf)
                                                    (with-current-buffer buf (ignore-errors (ccdag-lens-refresh)))))))))

(define-minor-mode ccdag-lens-mode
  "Show each turn's figures on a line above the turn.
The figures are its tool calls, tokens, cost and duration."
  :lighter nil
  (if ccdag-lens-mode
      (progn (add-hook 'after-change-functions #'ccdag--lens-after-change nil t)
             (ccdag--lens-after-change)) ; once eglot has opened the document
    (remove-hook 'after-change-functions #'ccdag--lens-after-change t)
    (mapc #'delete-overlay ccdag--lens-overlays)
    (setq ccdag--lens-overlays nil)))

(provide 'ccdag-reading)
;;; ccdag-reading.el ends here
