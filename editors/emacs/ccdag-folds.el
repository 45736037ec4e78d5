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

(defvar-local ccdag--fold-texts nil
  "What each folding range holds, its `collapsedText', by its start line.
A hash table: \"turn 3 · Fix the coupon bug · 12 tool calls · … · $0.42\".")

(defface ccdag-fold '((t :inherit shadow :box (:line-width -1)))
  "Face of a folded turn or step." :group 'ccdag)

(defun ccdag-folds-refresh ()
  "Ask the server for this log's folding ranges."
  (interactive)
  (let ((res (jsonrpc-request (ccdag--server) :textDocument/foldingRange
                              (list :textDocument (ccdag--text-document)))))
    (setq ccdag--fold-texts (make-hash-table))
    (setq ccdag--folds
          (mapcar (lambda (r)
                    (when (stringp (plist-get r :collapsedText))
                      (puthash (plist-get r :startLine) (plist-get r :collapsedText) ccdag--fold-texts))
                    (cons (plist-get r :startLine) (plist-get r :endLine)))
                  res))))

(defun ccdag--fold-overlays (beg end)
  "The fold overlays between BEG and END."
  (cl-remove-if-not (lambda (o) (overlay-get o 'ccdag-fold)) (overlays-in beg end)))

(defun ccdag--fold-range (r)
  "Fold the lines of range R into one line that says what they hold.
The line shows the range's `collapsedText' (a turn: its number, prompt and
figures) and its length, from the left margin: a marker at the end of the
first line would sit past the window's edge of a truncated log line."
  (save-excursion
    (goto-char (point-min))
    (forward-line (car r))
    (let ((beg (line-beginning-position))
          (text (or (and ccdag--fold-texts (gethash (car r) ccdag--fold-texts))
                    (let ((first (buffer-substring-no-properties (point) (min (line-end-position) (+ (point) 60)))))
                      (concat first "…")))))
      (forward-line (- (cdr r) (car r)))
      (let ((o (make-overlay beg (line-end-position))))
        (overlay-put o 'ccdag-fold t)
        (overlay-put o 'evaporate t)
        (overlay-put o 'display (propertize (format "▸ %s (%d lines)" text (1+ (- (cdr r) (car r))))
                                            'face 'ccdag-fold))
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
