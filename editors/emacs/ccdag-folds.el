;;; ccdag-folds.el --- fold a Claude Code session log by turn and step  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 the ccdag contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the ccdag package (loaded by ccdag.el).  eglot has no folding ranges: these commands
;; ask the server for them (textDocument/foldingRange, docs/spec.md §10) and fold with overlays,
;; so Emacs folds as VS Code and Neovim do: a turn, each step inside it (a tool call with its
;; result), a sub-agent's steps inside its call, a compaction segment; a compaction boundary is
;; never inside a fold.
;;
;; C-c C-f  `ccdag-fold-toggle'     fold the innermost range at point, or unfold the fold there
;; C-c C-a  `ccdag-fold-all'        fold every outermost range (turns, segments)
;; C-c C-u  `ccdag-unfold-all'      unfold everything

;;; Code:

(require 'eglot)
(require 'jsonrpc)
(require 'cl-lib)
(declare-function ccdag--text-document "ccdag" ())
(declare-function ccdag--server "ccdag" ())

(defvar-local ccdag--folds nil
  "The server's folding ranges of this log.
Each is (START . END), lines counted from 0, outer ranges first.")

(defun ccdag-folds-refresh ()
  "Ask the server for this log's folding ranges."
  (interactive)
  (let ((res (jsonrpc-request (ccdag--server) :textDocument/foldingRange
                              (list :textDocument (ccdag--text-document)))))
    (setq ccdag--folds
          (mapcar (lambda (r) (cons (plist-get r :startLine) (plist-get r :endLine))) res))))

(defun ccdag--fold-overlays (beg end)
  "The fold overlays between BEG and END."
  (cl-remove-if-not (lambda (o) (overlay-get o 'ccdag-fold)) (overlays-in beg end)))

(defun ccdag--fold-range (r)
  "Fold the lines of range R: its first line stays visible."
  (save-excursion
    (goto-char (point-min))
    (forward-line (car r))
    (let ((beg (line-end-position)))
      (forward-line (- (cdr r) (car r)))
      (let ((o (make-overlay beg (line-end-position))))
        (overlay-put o 'ccdag-fold t)
        (overlay-put o 'evaporate t)
        (overlay-put o 'display (propertize (format " … %d lines" (- (cdr r) (car r))) 'face 'shadow))
        o))))

(defun ccdag--fold-innermost (line)
  "The innermost range holding LINE (0-based), or nil."
  (let (best)
    (dolist (r ccdag--folds best)
      (when (and (<= (car r) line) (<= line (cdr r))
                 (or (null best) (> (car r) (car best))))
        (setq best r)))))

(defun ccdag-fold-toggle ()
  "Unfold the fold on this line, else fold the innermost turn or step at point."
  (interactive)
  (unless ccdag--folds (ccdag-folds-refresh))
  (let ((here (ccdag--fold-overlays (line-beginning-position) (1+ (line-end-position)))))
    (if here
        (mapc #'delete-overlay here)
      (let ((r (ccdag--fold-innermost (1- (line-number-at-pos)))))
        (if r (ccdag--fold-range r) (message "ccdag: no turn or step here"))))))

(defun ccdag-fold-all ()
  "Fold every outermost range.
Each turn and compaction segment shows as its first line."
  (interactive)
  (ccdag-folds-refresh)
  (ccdag-unfold-all)
  (let ((end -1))
    (dolist (r ccdag--folds) ; outer first: a range past the last folded one is outermost
      (when (> (car r) end)
        (ccdag--fold-range r)
        (setq end (cdr r))))))

(defun ccdag-unfold-all ()
  "Unfold everything."
  (interactive)
  (mapc #'delete-overlay (ccdag--fold-overlays (point-min) (point-max))))

(defvar ccdag-folds-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "C-c C-f") #'ccdag-fold-toggle)
    (define-key m (kbd "C-c C-a") #'ccdag-fold-all)
    (define-key m (kbd "C-c C-u") #'ccdag-unfold-all)
    m)
  "Folding keys of a session log.")

(define-minor-mode ccdag-folds-mode
  "Fold a session log by turn and step with the server's folding ranges."
  :lighter nil
  :keymap ccdag-folds-mode-map
  (unless ccdag-folds-mode
    (ccdag-unfold-all)
    (setq ccdag--folds nil)))

(provide 'ccdag-folds)
;;; ccdag-folds.el ends here
