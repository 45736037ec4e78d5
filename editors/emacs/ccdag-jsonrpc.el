;;; ccdag-jsonrpc.el --- jsonrpc 1.0.14's re-entered process filter, worked around  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 the ccdag contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the ccdag package (loaded by ccdag.el).  Emacs 28's jsonrpc (1.0.14, what eglot 1.9
;; runs on) hands each message to eglot from inside its process filter, with the process buffer
;; narrowed to that message and its parse state in local variables.  When the handler sends
;; something big, the 4 MB didOpen of a log eglot sends from the initialize reply's handler,
;; `process-send-string' waits for the pipe and reads the server's output meanwhile: the filter
;; runs again inside itself, inserts the new bytes at the end of the narrowed message instead of
;; after the unread ones, and the outer filter then deletes what the inner one parsed.  The stream
;; is out of frame from then on: no diagnostics, every later request times out, only
;; `eglot-reconnect' cures it (1 cold open in 3 of a 4 MB log here; Emacs bug#60088, fixed in
;; Emacs 29's jsonrpc).
;;
;; The workaround does what later jsonrpc does: the filter only parses (the messages it reads are
;; collected, not handled), and they are handled in order once the filter is done and its state
;; saved.  A filter that runs again while they are handled finds a whole buffer and handles its
;; own.  Messages left unhandled by a non-local exit (a synchronous request's answer throws out of
;; its wait) are handled from a timer right after.  Installed only on a jsonrpc without the fix.

;;; Code:

(require 'jsonrpc)

(defvar ccdag--jsonrpc-inbox nil
  "While jsonrpc's filter parses: a cons whose cdr collects what it read.
Newest first.")

(defun ccdag--jsonrpc-receive (orig connection message)
  "Around `jsonrpc-connection-receive' (ORIG).
Collect MESSAGE of CONNECTION while the filter parses."
  (if ccdag--jsonrpc-inbox
      (push (cons connection message) (cdr ccdag--jsonrpc-inbox))
    (funcall orig connection message)))

(defun ccdag--jsonrpc-handle (messages)
  "Hand MESSAGES, (CONNECTION . MESSAGE) pairs in order, to jsonrpc.
What a non-local exit leaves is handled from a timer."
  (unwind-protect
      (while messages
        (let ((m (pop messages)))
          (with-temp-buffer (jsonrpc-connection-receive (car m) (cdr m)))))
    (when messages
      (run-at-time 0 nil #'ccdag--jsonrpc-handle messages))))

(defun ccdag--jsonrpc-filter (orig proc string)
  "Around `jsonrpc--process-filter' (ORIG) for PROC and STRING.
Parse first, then handle."
  (let ((inbox (list 'inbox)))
    (let ((ccdag--jsonrpc-inbox inbox))
      (funcall orig proc string))
    (ccdag--jsonrpc-handle (nreverse (cdr inbox)))))

(defun ccdag-jsonrpc-fix (on)
  "Install the workaround when ON is non-nil, remove it otherwise.
It is installed when ccdag loads, on a jsonrpc that needs it (Emacs 28's)."
  (if on
      (progn (advice-add 'jsonrpc--process-filter :around #'ccdag--jsonrpc-filter)
             (advice-add 'jsonrpc-connection-receive :around #'ccdag--jsonrpc-receive))
    (advice-remove 'jsonrpc--process-filter #'ccdag--jsonrpc-filter)
    (advice-remove 'jsonrpc-connection-receive #'ccdag--jsonrpc-receive)))

;; jsonrpc 1.0.16+ (Emacs 29) guards its filter itself (the variable below).
(unless (boundp 'jsonrpc--in-process-filter)
  (ccdag-jsonrpc-fix t))

(provide 'ccdag-jsonrpc)
;;; ccdag-jsonrpc.el ends here
