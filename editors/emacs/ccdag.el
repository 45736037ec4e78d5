;;; ccdag.el --- Language server for Claude Code session logs, with eglot  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 the ccdag contributors

;; Author: the ccdag contributors
;; Maintainer: the ccdag contributors
;; URL: https://github.com/ccdag/ccdag
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; Keywords: tools, languages
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; The ccdag language server (`ccdag serve') on Claude Code session logs, through eglot.
;;
;;   (add-to-list 'load-path "/path/to/ccdag/editors/emacs")   ; or install the package
;;   (require 'ccdag)
;;
;; Needs Emacs 28+ and eglot (built in since Emacs 29; Debian: elpa-eglot), and `ccdag' on
;; PATH (or set `ccdag-program').  A session log (a .jsonl under .claude/projects, or every
;; .jsonl with `ccdag-all-jsonl') starts the server with `eglot-ensure'; one server serves all
;; of .claude/projects (it is the project root of session logs), so M-. into a sub-agent log
;; keeps talking to it.  Diagnostics show through flymake, definitions through xref (M-.),
;; hover through eldoc.  Session logs follow the file as it grows (`auto-revert-tail-mode',
;; `ccdag-follow').  Commands: M-x ccdag-graph (the HTML picture, `ccdag graph --format html',
;; opened with `browse-url-of-file'), M-x ccdag-graph-text (the graph as text, RET jumps to
;; the record), M-x ccdag-parent (Go to Parent: the server's `ccdag.parent' command),
;; M-x ccdag-transcript (the session as text, RET jumps to the log line; ccdag-reading.el).

;;; Code:

(require 'eglot)
(require 'project)
(require 'autorevert)
(require 'cl-lib)
(require 'seq)
(require 'url-parse)
(require 'url-util)
(require 'xref)
(require 'ccdag-jsonrpc) ; Emacs 28's jsonrpc loses the stream on a re-entered filter

;; eglot's document and position helpers are private in eglot 1.9 (Debian's, for Emacs 28) and
;; change between its releases: these use eglot's public function when it has one and otherwise
;; compute what eglot sends (the same URI as its didOpen, UTF-16 columns, as the server counts).
(defconst ccdag--uri-path-allowed-chars
  (let ((vec (copy-sequence url-path-allowed-chars)))
    (aset vec ?: nil)
    vec)
  "The characters eglot leaves unescaped in a file: URI's path.")

(defun ccdag--path-to-uri (path)
  "The file: URI eglot names PATH by."
  (if (fboundp 'eglot-path-to-uri)
      (eglot-path-to-uri path)
    (let ((truepath (file-truename path)))
      (concat "file://"
              (if (and (eq system-type 'windows-nt) (not (file-remote-p truepath))) "/")
              (url-hexify-string (directory-file-name (file-local-name truepath))
                                 ccdag--uri-path-allowed-chars)))))

(defun ccdag--uri-to-path (uri)
  "The local path of the file: URI URI."
  (if (fboundp 'eglot-uri-to-path)
      (eglot-uri-to-path uri)
    (let ((path (url-unhex-string (url-filename (url-generic-parse-url uri)))))
      (if (and (eq system-type 'windows-nt) (string-prefix-p "/" path)) (substring path 1) path))))

(defun ccdag--text-document ()
  "The TextDocumentIdentifier of this buffer."
  (list :uri (ccdag--path-to-uri (or buffer-file-name (buffer-file-name (buffer-base-buffer))))))

(defun ccdag--utf16-column ()
  "Point's column in UTF-16 code units (LSP's columns)."
  (/ (length (encode-coding-string (buffer-substring-no-properties (line-beginning-position) (point))
                                   'utf-16le t))
     2))

(defun ccdag--position-params ()
  "The TextDocumentPositionParams of point."
  (list :textDocument (ccdag--text-document)
        :position (list :line (1- (line-number-at-pos nil t)) :character (ccdag--utf16-column))))

(defun ccdag--move-to-utf16-column (column)
  "Move to UTF-16 COLUMN of the current line (at most its end)."
  (beginning-of-line)
  (let ((n 0) (eol (line-end-position)))
    (while (and (< (point) eol) (< n column))
      (setq n (+ n (if (> (char-after) #xffff) 2 1)))
      (forward-char))))

(defgroup ccdag nil
  "The ccdag language server for Claude Code session logs."
  :group 'tools)

(defcustom ccdag-program "ccdag"
  "The ccdag binary."
  :type 'string)

(defcustom ccdag-severity nil
  "Per-code severity overrides, e.g. ((\"parent-after-child\" . \"hint\")).
Sent as initializationOptions {\"severity\": {...}} and as settings
{\"ccdag\": {\"severity\": {...}}}."
  :type '(alist :key-type string :value-type string))

(defcustom ccdag-claude-version ""
  "The Claude Code version that will resume the sessions, e.g. \"2.1.328\".
\"\" (the default): the newest version found in the logs under each
session's config folder.  It decides the resume figures, the findings on
the resumed chain and \\[ccdag-resume].  Sent as initializationOptions
{\"claudeVersion\": ...} and as settings {\"ccdag\": {\"claudeVersion\": ...}};
after changing it, \\[eglot-signal-didChangeConfiguration] sends it."
  :type 'string)

(defcustom ccdag-all-jsonl nil
  "Non-nil: serve every .jsonl file.
nil: only session logs under .claude/projects (or
$CLAUDE_CONFIG_DIR/projects), as the VS Code and Neovim integrations do."
  :type 'boolean)

(defcustom ccdag-follow t
  "Non-nil: session logs follow their file as a live session appends to it.
With `auto-revert-tail-mode' the new lines are added, and the server checks
only them."
  :type 'boolean)

(defun ccdag-projects-root (&optional file)
  "The .claude/projects folder FILE is under, or nil.
FILE defaults to this buffer's file or folder."
  (let ((path (expand-file-name (or file buffer-file-name default-directory))))
    (cond
     ((string-match "\\`\\(.*/\\.claude/projects\\)/" path) (file-name-as-directory (match-string 1 path)))
     ((let ((cfg (getenv "CLAUDE_CONFIG_DIR")))
        (and cfg (not (string= cfg ""))
             (let ((root (file-name-as-directory (expand-file-name "projects" cfg))))
               (and (string-prefix-p root path) root))))))))

(defun ccdag-session-log-p (&optional buffer)
  "Whether BUFFER (default: current) is a log ccdag serves."
  (with-current-buffer (or buffer (current-buffer))
    (and buffer-file-name
         (string-suffix-p ".jsonl" buffer-file-name)
         (or ccdag-all-jsonl (ccdag-projects-root buffer-file-name))
         t)))

;; One project, hence one eglot server, for all of .claude/projects: a definition that opens a
;; sub-agent log (in <session>/subagents/) stays with the server that has the session.
(defun ccdag--project-find (dir)
  (let ((root (ccdag-projects-root (file-name-as-directory (expand-file-name dir)))))
    (and root (cons 'ccdag-projects root))))

(cl-defmethod project-root ((project (head ccdag-projects)))
  (cdr project))

(add-hook 'project-find-functions #'ccdag--project-find -50)

(define-derived-mode ccdag-jsonl-mode prog-mode "JSONL"
  "Major mode for JSON Lines files such as Claude Code session logs.
Used for .jsonl files unless another package defines `jsonl-mode',
which is then served alike."
  (setq-local comment-start nil)
  ;; Logs have very long lines: keep redisplay cheap.
  (setq-local bidi-paragraph-direction 'left-to-right)
  (setq-local bidi-inhibit-bpa t)
  (setq-local truncate-lines t)
  ;; The mode line's line number (L615, as every message cites lines): Emacs gives up on it (L??)
  ;; where lines near point are longer on average than this, and a log's are thousands long.
  (setq-local line-number-display-limit-width most-positive-fixnum))

(add-to-list 'auto-mode-alist
             (cons "\\.jsonl\\'" (if (fboundp 'jsonl-mode) 'jsonl-mode 'ccdag-jsonl-mode)))

(defun ccdag--severity-object ()
  "`ccdag-severity' as a JSON object (a plist), never null."
  (if ccdag-severity
      (let (pl)
        (dolist (c ccdag-severity (nreverse pl))
          (push (intern (concat ":" (car c))) pl)
          (push (cdr c) pl)))
    (make-hash-table)))

;; The server: `ccdag serve', with the severity overrides as initializationOptions.
(add-to-list 'eglot-server-programs
             `(((ccdag-jsonl-mode :language-id "jsonl") (jsonl-mode :language-id "jsonl"))
               . ,(lambda (&optional _interactive)
                    (list ccdag-program "serve"
                          :initializationOptions
                          (lambda (_server) (list :severity (ccdag--severity-object)
                                                 :claudeVersion (or ccdag-claude-version "")))))))

;; ...and as settings, pushed with workspace/didChangeConfiguration.
(defun ccdag--workspace-configuration (&optional _server)
  (list :ccdag (list :severity (ccdag--severity-object)
                     :claudeVersion (or ccdag-claude-version ""))))

(defun ccdag--setup-buffer ()
  (setq-local eglot-workspace-configuration #'ccdag--workspace-configuration)
  (when (ccdag-session-log-p)
    (when ccdag-follow
      ;; Quietly: a live session grows every second, and "Reverting buffer" each time hides
      ;; every other message.
      (setq-local auto-revert-verbose nil)
      (auto-revert-tail-mode 1))
    (eglot-ensure)))

(add-hook 'ccdag-jsonl-mode-hook #'ccdag--setup-buffer)
(add-hook 'jsonl-mode-hook #'ccdag--setup-buffer)

;; A tail revert (auto-revert-tail-mode) inserts the new lines, which eglot sends as one
;; didChange: the server parses only them.  eglot's revert hooks would also close and reopen the
;; document (the whole text again) and, as the tail handler hides the file name from them, fail
;; half way and leave the buffer marked modified.  They run only for real reverts here.  eglot has
;; no public API for this (1.9, Debian's, included): its two revert hooks are replaced by name
;; (only when it installed them).  These three functions are the only place ccdag names eglot's
;; private ones.
(defun ccdag--before-revert ()
  (when buffer-file-name (eglot--signal-textDocument/didClose)))

(defun ccdag--after-revert ()
  (when buffer-file-name (eglot--after-revert-hook)))

(defun ccdag--real-reverts-only ()
  "Have eglot's revert hooks run in this buffer for real reverts only."
  (when (memq 'eglot--signal-textDocument/didClose before-revert-hook)
    (remove-hook 'before-revert-hook 'eglot--signal-textDocument/didClose t)
    (add-hook 'before-revert-hook #'ccdag--before-revert nil t))
  (when (memq 'eglot--after-revert-hook after-revert-hook)
    (remove-hook 'after-revert-hook 'eglot--after-revert-hook t)
    (add-hook 'after-revert-hook #'ccdag--after-revert nil t)))

(defcustom ccdag-lens t
  "Whether session logs show each turn's figures above the turn.
The figures are drawn by `ccdag-lens-mode'."
  :type 'boolean)

(defun ccdag--managed ()
  (when (and (eglot-managed-p) (ccdag-session-log-p) ccdag-lens (fboundp 'ccdag-lens-mode))
    (ccdag-lens-mode 1))
  (when (and (eglot-managed-p) (ccdag-session-log-p) (fboundp 'ccdag-folds-mode))
    (ccdag-folds-mode 1))
  (when (and (eglot-managed-p) (ccdag-session-log-p))
    (ccdag--real-reverts-only)
    (add-hook 'xref-backend-functions #'ccdag--xref-backend -10 t)))

(add-hook 'eglot-managed-mode-hook #'ccdag--managed)

;; Diagnostics of a big log, each time it grows: eglot 1.9 finds each position from the buffer's
;; start (`forward-line' over megabytes per position), 0.2 s for 25 findings in a 3.5 MB log, and
;; a live session republishes them after every append, so the editor stuttered.  While eglot reads
;; a session log's publishDiagnostics, a position is found from the line found before it (the
;; findings come in line order); the column as eglot finds it.  `eglot--lsp-position-to-point' is
;; private (eglot 1.9): the advice calls it unchanged outside that notification.
(defvar ccdag-relative-positions t
  "Non-nil: a session log's diagnostics are placed line after line.
nil: each from the buffer's start, as eglot 1.9 does.")

(defvar ccdag--line-found nil
  "While eglot reads a publishDiagnostics: a cons cell.
Its car is (BUFFER LINE . POS), the last line found.")

(cl-defmethod eglot-handle-notification :around (_server (_method (eql textDocument/publishDiagnostics)) &rest _)
  (let ((ccdag--line-found (and ccdag-relative-positions (list nil))))
    (cl-call-next-method)))

(defun ccdag--position-to-point (orig pos &optional marker)
  "Around `eglot--lsp-position-to-point' (ORIG) for POS and MARKER.
While a session log's diagnostics are read, from the line found before."
  (if (not (and ccdag--line-found (ccdag-session-log-p)))
      (funcall orig pos marker)
    (save-excursion
      (save-restriction
        (widen)
        (let* ((line (min most-positive-fixnum (plist-get pos :line)))
               (last (car ccdag--line-found))
               (col (plist-get pos :character)))
          (if (and last (eq (car last) (current-buffer)))
              (progn (goto-char (cddr last)) (forward-line (- line (cadr last))))
            (goto-char (point-min))
            (forward-line line))
          (unless (eobp)
            (setcar ccdag--line-found (cons (current-buffer) (cons line (point))))
            (let ((tab-width 1))
              (funcall eglot-move-to-column-function (if (wholenump col) col 0))))
          (if marker (copy-marker (point-marker)) (point)))))))

(advice-add 'eglot--lsp-position-to-point :around #'ccdag--position-to-point)

;; M-. where the server finds nothing: it says why (window/showMessage: "ccdag: no definition: no
;; parentUuid, tool_use_id or agentId at the cursor"), and xref's own "No definitions found for:
;; LSP identifier at point." came right after and replaced it.  In session logs an xref backend
;; before eglot's asks eglot and, when nothing is found, ends with the server's reason instead.
(defvar ccdag--said nil "The last window/showMessage of a ccdag server, while M-. waits for it.")

(defun ccdag--note-message (_server method &rest params)
  "Keep a window/showMessage (METHOD, PARAMS) for the ccdag xref backend."
  (when (eq method 'window/showMessage)
    (setq ccdag--said (plist-get params :message))))

(advice-add 'eglot-handle-notification :before #'ccdag--note-message)

(defun ccdag--xref-backend ()
  "The xref backend of a session log eglot manages."
  (and (eglot-managed-p) (ccdag-session-log-p) 'ccdag))

(cl-defmethod xref-backend-identifier-at-point ((_backend (eql ccdag)))
  (xref-backend-identifier-at-point 'eglot))

(cl-defmethod xref-backend-identifier-completion-table ((_backend (eql ccdag)))
  (xref-backend-identifier-completion-table 'eglot))

(cl-defmethod xref-backend-references ((_backend (eql ccdag)) id)
  (xref-backend-references 'eglot id))

(cl-defmethod xref-backend-apropos ((_backend (eql ccdag)) pattern)
  (xref-backend-apropos 'eglot pattern))

(cl-defmethod xref-backend-definitions ((_backend (eql ccdag)) id)
  (setq ccdag--said nil)
  (or (xref-backend-definitions 'eglot id)
      (and ccdag--said (user-error "%s" ccdag--said))))

(defun ccdag-graph ()
  "Write the workflow graph of this session as HTML and open it in a browser.
Say where it is.  The file is new (`make-temp-file'), never a predictable
name in /tmp.  It shows the file on disk, not unsaved changes."
  (interactive)
  (let* ((file (or buffer-file-name (user-error "This buffer visits no file")))
         (out (make-temp-file (concat "ccdag-" (file-name-base file) "-") nil ".html"))
         (status (call-process ccdag-program nil "*ccdag-graph*" nil
                               "graph" "--format" "html" "-o" out file)))
    (unless (eq status 0)
      (delete-file out)
      (user-error "ccdag graph failed; see the *ccdag-graph* buffer"))
    (browse-url-of-file out)
    (message "ccdag: graph written to %s" out)
    out))

(defun ccdag--server ()
  (or (eglot-current-server) (user-error "No ccdag server for this buffer (M-x eglot)")))

(defun ccdag--goto-location (loc)
  "Visit the LSP Location LOC (a plist)."
  (let* ((path (ccdag--uri-to-path (plist-get loc :uri)))
         (start (plist-get (plist-get loc :range) :start)))
    (xref-push-marker-stack)
    (find-file path)
    (goto-char (point-min))
    (forward-line (plist-get start :line))
    (ccdag--move-to-utf16-column (plist-get start :character))))

(defun ccdag--symbol-candidates (query)
  "Workspace symbols matching QUERY as (LABEL . SYMBOL) pairs.
LABEL is the symbol's name and its container (project, session
title, line), as the server names them: eglot's own
`xref-find-apropos' shows each symbol's raw log line instead."
  (mapcar (lambda (s)
            (cons (format "%s  —  %s" (plist-get s :name) (or (plist-get s :containerName) "")) s))
          (jsonrpc-request (ccdag--server) :workspace/symbol (list :query query))))

(defun ccdag-find-symbol (query)
  "Go to a prompt or tool call of any session matching QUERY (Ctrl+T).
Each match reads \"name  —  project · session title · L<line>\"."
  (interactive (list (read-string "ccdag symbol: ")))
  (let* ((cands (or (ccdag--symbol-candidates query) (user-error "No symbol matches %s" query)))
         (choice (completing-read "Symbol: " cands nil t)))
    (ccdag--goto-location (plist-get (cdr (assoc choice cands)) :location))))

(defun ccdag-parent ()
  "Go to the parent of the record at point (the server's `ccdag.parent').
That is the record its parentUuid names (logicalParentUuid for a
compaction), or on a sub-agent log's first record the call that spawned it."
  (interactive)
  (let* ((res (jsonrpc-request (ccdag--server) :workspace/executeCommand
                               `(:command "ccdag.parent" :arguments [,(ccdag--position-params)])))
         (loc (plist-get res :location)))
    (if loc
        (ccdag--goto-location loc)
      (message "ccdag: %s" (or (plist-get res :reason) "no parent")))
    loc))

(defun ccdag-graph-text--insert (res)
  "Insert the graph drawn as text, RES, as it is.
RES is the answer of the graph request with format \"text\".  Each line
that shows a node carries its record's location; a key hint follows
the legend."
  (let ((lines (split-string (or (plist-get res :text) "") "\n"))
        (locs (make-hash-table)))
    (seq-doseq (l (plist-get res :lines))
      (puthash (plist-get l :row) (plist-get l :location) locs))
    (when (equal (car (last lines)) "") (setq lines (butlast lines)))
    (seq-do-indexed
     (lambda (line row)
       (when (= row 2) (insert "RET jump to the record   q close\n"))
       (let ((beg (point)) (loc (gethash row locs)))
         (insert line "\n")
         (when loc (put-text-property beg (point) 'ccdag-location loc))))
     lines)))

(defun ccdag-graph-text-jump ()
  "Go to the record of the graph line at point."
  (interactive)
  (let ((loc (get-text-property (point) 'ccdag-location)))
    (if loc (ccdag--goto-location loc) (message "ccdag: no record on this line"))))

(defvar ccdag-graph-text-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "RET") #'ccdag-graph-text-jump)
    m))

(define-derived-mode ccdag-graph-text-mode special-mode "ccdag-graph"
  "The workflow graph of a session as text.  RET jumps to the record."
  (setq-local truncate-lines t))

(defun ccdag-graph-text ()
  "Show the workflow graph of this session as text.
The server's drawing (`ccdag/workflowGraph' with format \"text\", the same as
`ccdag graph --format text'), shown as it is."
  (interactive)
  (let* ((res (jsonrpc-request (ccdag--server) :ccdag/workflowGraph
                               `(:textDocument ,(ccdag--text-document) :format "text")))
         (sid (let ((text (or (plist-get res :text) "")))
                (if (string-match "\\`Session \\(.*?\\): " text) (match-string 1 text) "session")))
         (buf (get-buffer-create (format "*ccdag-graph %s*" sid))))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (ccdag-graph-text-mode)
        (ccdag-graph-text--insert res)
        (goto-char (point-min))))
    (pop-to-buffer buf)
    buf))
(require 'ccdag-reading) ; M-x ccdag-transcript; inlay hints (eglot 1.15+)
(require 'ccdag-folds)   ; folds by turn and step from the server's folding ranges
(require 'ccdag-sessions) ; M-x ccdag-sessions
(require 'ccdag-resume) ; M-x ccdag-resume

(provide 'ccdag)
;;; ccdag.el ends here
