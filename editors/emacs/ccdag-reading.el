;;; ccdag-reading.el --- read a Claude Code session: transcript, inlay hints  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 the ccdag contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the ccdag package (loaded by ccdag.el).  docs/spec.md §7 in Emacs:
;;
;; M-x ccdag-transcript   the session (request ccdag/transcript) as text, not Markdown source (no
;;                        backslash escapes, link targets, ** or backticks; `ccdag-plain-lines',
;;                        as Neovim's lua/ccdag/plain.lua), in a read-only buffer
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
(require 'cl-lib)
(require 'seq)
(declare-function ccdag--text-document "ccdag" ())
(declare-function ccdag--uri-to-path "ccdag" (uri))

;; Side buffers: a read-only view beside a log (the transcript here, the resume preview in
;; ccdag-resume.el), filled from a server request, linked line by line to the log's records and
;; kept current with the log: asked again shortly after the log changes (edits and appends come in
;; bursts).

(defvar-local ccdag--side-log nil "In a side buffer: the log buffer it shows.")
(defvar-local ccdag--side-lines nil
  "In a side buffer: the server's links from its lines to the log's.
A vector of plists.")
(defvar-local ccdag--side-fetch nil "In a side buffer: the function of the buffer that fills it.")
(defvar-local ccdag--side-buffers nil "In a log buffer: its live side buffers.")
(defvar-local ccdag--side-timer nil "In a log buffer: a pending refresh of its side buffers.")

(defun ccdag--side-request (buf method params)
  "Ask the server of BUF's log METHOD; return the answer.
PARAMS is a function of no argument run in the log buffer."
  (let ((log (buffer-local-value 'ccdag--side-log buf)))
    (when (and (buffer-live-p log) (buffer-live-p buf))
      (with-current-buffer log
        (let ((server (eglot-current-server)))
          (unless server (user-error "No ccdag server for this buffer (M-x eglot)"))
          (jsonrpc-request server method (funcall params)))))))

(defun ccdag--side-fill (buf text lines)
  "Put TEXT into side buffer BUF with its line links LINES, keeping point's line."
  (with-current-buffer buf
    (let ((inhibit-read-only t)
          (line (line-number-at-pos)))
      (erase-buffer)
      (insert (or text ""))
      (setq ccdag--side-lines lines)
      (goto-char (point-min))
      (forward-line (1- line)))))

(defun ccdag--side-refresh-soon (&rest _)
  "In a log buffer: fill its side buffers again, shortly."
  (setq ccdag--side-buffers (seq-filter #'buffer-live-p ccdag--side-buffers))
  (if (null ccdag--side-buffers)
      (remove-hook 'after-change-functions #'ccdag--side-refresh-soon t)
    (when (timerp ccdag--side-timer) (cancel-timer ccdag--side-timer))
    (let ((bufs ccdag--side-buffers))
      (setq ccdag--side-timer
            (run-with-idle-timer
             0.3 nil (lambda ()
                       (dolist (b bufs)
                         (when (buffer-live-p b)
                           (ignore-errors (funcall (buffer-local-value 'ccdag--side-fetch b) b))))))))))

(defun ccdag--side-open (name mode fetch &optional setup)
  "Open side buffer NAME in MODE beside the current log.
FETCH, a function of the buffer, fills it.
SETUP, if given, runs in the new buffer before the first fill.
Returns the buffer, selected."
  (let ((log (current-buffer))
        (buf (get-buffer-create name)))
    (unless (eglot-current-server) (user-error "No ccdag server for this buffer (M-x eglot)"))
    (with-current-buffer buf
      (funcall mode)
      (setq ccdag--side-log log
            ccdag--side-fetch fetch)
      (when setup (funcall setup)))
    (cl-pushnew buf ccdag--side-buffers)
    (add-hook 'after-change-functions #'ccdag--side-refresh-soon nil t)
    (funcall fetch buf)
    ;; Selected: RET there jumps; left in the log, RET would edit it.
    (pop-to-buffer buf '(display-buffer-pop-up-window (inhibit-same-window . t)))
    buf))

(defun ccdag--side-goto (entry)
  "Go to the log line ENTRY (a link with :uri and a 0-based :line) names."
  (let ((file (ccdag--uri-to-path (plist-get entry :uri))))
    (pop-to-buffer (or (find-buffer-visiting file) (find-file-noselect file)))
    (goto-char (point-min))
    (forward-line (plist-get entry :line))))

(defun ccdag-side-refresh ()
  "Fill this side buffer (transcript, resume preview) again from the server."
  (interactive)
  (funcall ccdag--side-fetch (current-buffer)))

(defalias 'ccdag-transcript-refresh #'ccdag-side-refresh)

;; The transcript's Markdown as text a person reads in a buffer (Neovim's lua/ccdag/plain.lua): no
;; backslash escapes, no link targets, no ** or backticks, <details> as a marker, fences blank, in a
;; sub-agent's quoted lines too.  Line for line: the server's map from transcript lines to log
;; lines stays true.

(defconst ccdag--plain-punct "[!-/:-@[-`{-~]"
  "ASCII punctuation: what CommonMark lets a backslash escape.")

(defun ccdag--plain-balanced (s i)
  "The index after the bracket closing the `[' at I in S, or nil (Lua's %b[])."
  (let ((depth 0) (n (length s)) end)
    (while (and (< i n) (not end))
      (let ((c (aref s i)))
        (cond ((eq c ?\[) (setq depth (1+ depth)))
              ((eq c ?\]) (setq depth (1- depth)) (when (= depth 0) (setq end (1+ i))))))
      (setq i (1+ i)))
    end))

(defun ccdag--plain-unlink (s target)
  "S with each link [text] its TARGET follows as [text].
TARGET is a regexp matched right after the bracket: \"(<…>)\"."
  (let ((out nil) (i 0) (n (length s)))
    (while (< i n)
      (let ((close (and (eq (aref s i) ?\[) (ccdag--plain-balanced s i))))
        (if (and close (eq (string-match target s close) close))
            (progn (push (substring s i close) out)
                   (setq i (match-end 0)))
          (push (substring s i (1+ i)) out)
          (setq i (1+ i)))))
    (apply #'concat (nreverse out))))

(defun ccdag-plain-line (s)
  "One line S of Markdown outside a code fence, as text."
  (save-match-data
    (when (string-match "\\`[[:space:]]*<details><summary>\\(.*?\\)</summary>[[:space:]]*\\'" s)
      (setq s (concat "▸ " (match-string 1 s))))
    (if (string-match-p "\\`[[:space:]]*</details>[[:space:]]*\\'" s)
        ""
      ;; links: the text stays, the target goes ([L6](<file:///…#L6>) reads [L6])
      (setq s (ccdag--plain-unlink (ccdag--plain-unlink s "(<[^>]*>)") "([^[:space:])]*)"))
      (let ((out nil) (i 0) (n (length s)))
        (while (< i n)
          (let ((c (aref s i)))
            (cond
             ((and (eq c ?\\) (< (1+ i) n) (string-match-p ccdag--plain-punct (string (aref s (1+ i)))))
              (push (string (aref s (1+ i))) out)
              (setq i (+ i 2)))
             ((and (eq c ?\\) (= (1+ i) n)) ; a hard line break
              (setq i (1+ i)))
             ((eq c ?`)
              (let* ((run (progn (string-match "`+" s i) (match-string 0 s)))
                     (close (string-search run s (+ i (length run)))))
                (if close
                    (progn (push (substring s (+ i (length run)) close) out)
                           (setq i (+ close (length run))))
                  (push run out)
                  (setq i (+ i (length run))))))
             ((and (eq c ?*) (< (1+ i) n) (eq (aref s (1+ i)) ?*))
              (setq i (+ i 2)))
             (t (push (string c) out)
                (setq i (1+ i))))))
        (apply #'concat (nreverse out))))))

(defun ccdag-plain-lines (lines)
  "The transcript's Markdown LINES (a list of strings) as text, as many lines."
  (let ((fence nil) (out nil))
    (save-match-data
      (dolist (l lines)
        ;; the container: the indentation and quote markers ("  > > ") before a sub-agent's lines
        ;; and a result's preview; what follows reads as a line of its own
        (let* ((plen (progn (string-match "\\`[ >]*" l) (match-end 0)))
               (p (substring l 0 plen))
               (rest (substring l plen))
               (bare (string-trim-right p)))
          (cond
           (fence
            (if (and (string-match "\\`\\(```+\\)[[:space:]]*\\'" rest)
                     (>= (length (match-string 1 rest)) (length fence)))
                (progn (setq fence nil) (push bare out))
              (push l out)))
           ;; an opening fence: a run of backticks and an info string without one
           ((string-match "\\`\\(```+\\)[^`]*\\'" rest)
            (setq fence (match-string 1 rest))
            (push bare out))
           (t
            (let ((tx (ccdag-plain-line rest)))
              ;; a line dropped whole (</details>): no trailing blanks
              (push (concat (if (and (string-empty-p tx) (not (string-empty-p rest))) bare p) tx) out)))))))
    (nreverse out)))

(defun ccdag-plain-text (markdown)
  "The transcript's MARKDOWN as text, line for line (`ccdag-plain-lines')."
  (mapconcat #'identity (ccdag-plain-lines (split-string (or markdown "") "\n")) "\n"))

;; The transcript.

(defvar-local ccdag--transcript-all nil "Whether the transcript shows abandoned branches.")

(defvar ccdag-transcript-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "RET") #'ccdag-transcript-jump)
    (define-key m (kbd "g") #'ccdag-side-refresh)
    (define-key m (kbd "q") #'quit-window)
    m)
  "Keys of a ccdag transcript buffer.")

(define-derived-mode ccdag-transcript-mode special-mode "ccdag-transcript"
  "A session's transcript.
RET jumps to the log line of the line at point; g fetches it again."
  (setq-local truncate-lines nil)
  (setq-local bidi-paragraph-direction 'left-to-right))

(defun ccdag--transcript-fetch (buf)
  "Ask the server for the transcript shown in BUF."
  (let ((res (ccdag--side-request
              buf :ccdag/transcript
              (lambda () (list :textDocument (ccdag--text-document)
                               :allBranches (if (buffer-local-value 'ccdag--transcript-all buf) t :json-false))))))
    (when res (ccdag--side-fill buf (ccdag-plain-text (plist-get res :markdown)) (plist-get res :lines)))))

(defun ccdag-transcript (&optional all)
  "Show the transcript of this session log beside it.
With a prefix argument ALL, abandoned branches too."
  (interactive "P")
  (ccdag--side-open (format "*ccdag transcript: %s*" (buffer-name)) #'ccdag-transcript-mode
                    #'ccdag--transcript-fetch
                    (lambda () (setq ccdag--transcript-all (and all t)))))

(defun ccdag--transcript-entry (line)
  "The line map entry of 0-based transcript LINE: the last one at or before it."
  (let (best)
    (seq-doseq (e ccdag--side-lines)
      (when (<= (plist-get e :transcript) line) (setq best e)))
    best))

(defun ccdag-transcript-jump ()
  "Go to the log line the transcript line at point comes from."
  (interactive)
  (let ((e (ccdag--transcript-entry (1- (line-number-at-pos)))))
    (unless e (user-error "No log line for this line"))
    (ccdag--side-goto e)))



;; Per-turn figures (docs/spec.md §10): eglot shows no code lens in any version, so the server's
;; lenses (each turn's tool calls, sub-agents, tokens, cost and duration; the session's totals on
;; line 1) are drawn as a line of their own above the record they belong to, as overlays.  They
;; follow the log: fetched again shortly after a change.  A lens with a command (Show Workflow
;; Graph, Open Transcript: client commands, as VS Code and Neovim run them) is a button there:
;; mouse-1 or mouse-2 runs it.  Point never rests on an overlay's text, and RET in the log
;; edits it: from the keyboard, C-c C-l (`ccdag-lens-run') on the record's line runs its lens.

(defface ccdag-lens '((t :inherit shadow)) "Face of the per-turn figures above a turn's record." :group 'ccdag)
(defface ccdag-lens-action '((t :inherit (link ccdag-lens)))
  "Face of a lens that runs a command (Show Workflow Graph, Open Transcript)." :group 'ccdag)

(declare-function ccdag-graph "ccdag" ())

(defvar ccdag--lens-commands
  '(("ccdag.showWorkflowGraph" . ccdag-graph)
    ("ccdag.openTranscript" . ccdag-transcript))
  "The client commands of the server's lenses and the Emacs command each runs.")

(defun ccdag--lens-run (buf fn)
  "Run FN, a lens's command, in the log BUF (its window selected when shown)."
  (when (buffer-live-p buf)
    (let ((win (get-buffer-window buf)))
      (when win (select-window win)))
    (with-current-buffer buf (funcall fn))))

(defun ccdag--lens-text (buf title command)
  "The text of a lens of BUF: TITLE.
A button when COMMAND (a client command) is one Emacs runs."
  (let ((fn (cdr (assoc command ccdag--lens-commands))))
    (if (not fn)
        (propertize title 'face 'ccdag-lens)
      (make-text-button title nil
                        'face 'ccdag-lens-action 'mouse-face 'highlight 'follow-link t
                        'help-echo (format "mouse-1: %s (C-c C-l on the line below)" title)
                        'action (lambda (_) (ccdag--lens-run buf fn))))))

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
                (title (plist-get (plist-get l :command) :title))
                (command (plist-get (plist-get l :command) :command)))
            (when (and (integerp line) (stringp title))
              (puthash line (append (gethash line by-line) (list (cons title command))) by-line))))
        (save-excursion
          (maphash (lambda (line lenses)
                     (goto-char (point-min))
                     (when (= 0 (forward-line line))
                       (let ((ov (make-overlay (point) (point))))
                         (overlay-put ov 'ccdag-lens t)
                         ;; the lenses with a command, for C-c C-l: (TITLE . FUNCTION)
                         (overlay-put ov 'ccdag-lens-actions
                                      (delq nil (mapcar (lambda (l) (let ((fn (cdr (assoc (cdr l) ccdag--lens-commands))))
                                                                      (and fn (cons (car l) fn))))
                                                        lenses)))
                         (overlay-put ov 'before-string
                                      (concat (mapconcat (lambda (l) (ccdag--lens-text buf (car l) (cdr l)))
                                                         lenses (propertize " | " 'face 'ccdag-lens))
                                              (propertize "\n" 'face 'ccdag-lens)))
                         (push ov ccdag--lens-overlays))))
                   by-line))))))

(defun ccdag-lens-run ()
  "Run a lens of the record at point's line: Show Workflow Graph, Open Transcript.
The lenses are drawn on the line above it.  With several, ask which."
  (interactive)
  (let* ((ov (seq-find (lambda (o) (overlay-get o 'ccdag-lens))
                       (overlays-in (line-beginning-position) (line-beginning-position))))
         (actions (and ov (overlay-get ov 'ccdag-lens-actions)))
         (action (if (cdr actions)
                     (assoc (completing-read "Lens: " actions nil t) actions)
                   (car actions))))
    (unless action (user-error "No lens to run on this line"))
    (ccdag--lens-run (current-buffer) (cdr action))))

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

(defvar ccdag-lens-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "C-c C-l") #'ccdag-lens-run)
    m)
  "Keys of a session log's lenses.")

(define-minor-mode ccdag-lens-mode
  "Show each turn's figures on a line above the turn.
The figures are its tool calls, tokens, cost and duration.  Show
Workflow Graph and Open Transcript above line 1 are buttons (mouse-1);
\\[ccdag-lens-run] on a record's line runs its lens."
  :lighter nil
  :keymap ccdag-lens-mode-map
  (if ccdag-lens-mode
      (progn (add-hook 'after-change-functions #'ccdag--lens-after-change nil t)
             (ccdag--lens-after-change)) ; once eglot has opened the document
    (remove-hook 'after-change-functions #'ccdag--lens-after-change t)
    (mapc #'delete-overlay ccdag--lens-overlays)
    (setq ccdag--lens-overlays nil)))

(provide 'ccdag-reading)
;;; ccdag-reading.el ends here
