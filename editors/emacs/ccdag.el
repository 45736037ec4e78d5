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
;; M-x ccdag-transcript (the session as Markdown, RET jumps to the log line; ccdag-reading.el).

;;; Code:

(require 'eglot)
(require 'project)
(require 'autorevert)
(require 'cl-lib)

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
  (setq-local truncate-lines t))

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
                          (lambda (_server) (list :severity (ccdag--severity-object)))))))

;; ...and as settings, pushed with workspace/didChangeConfiguration.
(defun ccdag--workspace-configuration (&optional _server)
  (list :ccdag (list :severity (ccdag--severity-object))))

(defun ccdag--setup-buffer ()
  (setq-local eglot-workspace-configuration #'ccdag--workspace-configuration)
  (when (ccdag-session-log-p)
    (when ccdag-follow
      (auto-revert-tail-mode 1))
    (eglot-ensure)))

(add-hook 'ccdag-jsonl-mode-hook #'ccdag--setup-buffer)
(add-hook 'jsonl-mode-hook #'ccdag--setup-buffer)

;; A tail revert (auto-revert-tail-mode) inserts the new lines, which eglot sends as one
;; didChange: the server parses only them.  eglot's revert hooks would also close and reopen the
;; document (the whole text again) and, as the tail handler hides the file name from them, fail
;; half way and leave the buffer marked modified.  They run only for real reverts here.
(defun ccdag--before-revert ()
  (when buffer-file-name (eglot--signal-textDocument/didClose)))

(defun ccdag--after-revert ()
  (when buffer-file-name (eglot--after-revert-hook)))

(defun ccdag--managed ()
  (when (and (eglot-managed-p) (ccdag-session-log-p))
    (when (memq 'eglot--signal-textDocument/didClose before-revert-hook)
      (remove-hook 'before-revert-hook 'eglot--signal-textDocument/didClose t)
      (add-hook 'before-revert-hook #'ccdag--before-revert nil t))
    (when (memq 'eglot--after-revert-hook after-revert-hook)
      (remove-hook 'after-revert-hook 'eglot--after-revert-hook t)
      (add-hook 'after-revert-hook #'ccdag--after-revert nil t))))

(add-hook 'eglot-managed-mode-hook #'ccdag--managed)

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
  (let* ((path (eglot--uri-to-path (plist-get loc :uri)))
         (start (plist-get (plist-get loc :range) :start)))
    (xref-push-marker-stack)
    (find-file path)
    (goto-char (point-min))
    (forward-line (plist-get start :line))
    (let ((eglot-move-to-column-function #'eglot-move-to-lsp-abiding-column))
      (funcall eglot-move-to-column-function (plist-get start :character)))))

(defun ccdag-parent ()
  "Go to the parent of the record at point (the server's `ccdag.parent').
That is the record its parentUuid names (logicalParentUuid for a
compaction), or on a sub-agent log's first record the call that spawned it."
  (interactive)
  (let* ((res (jsonrpc-request (ccdag--server) :workspace/executeCommand
                               `(:command "ccdag.parent" :arguments [,(eglot--TextDocumentPositionParams)])))
         (loc (plist-get res :location)))
    (if loc
        (ccdag--goto-location loc)
      (message "ccdag: %s" (or (plist-get res :reason) "no parent")))
    loc))

(defconst ccdag--kind-marks
  '(("USER_INPUT" . "[U]") ("THOUGHT" . "[T]") ("ACTION" . "[A]") ("OBSERVATION" . "[O]") ("SYSTEM" . "[S]")))

(defun ccdag--oneline (s)
  (let ((s (replace-regexp-in-string "[[:cntrl:][:space:]]+" " " (string-trim (or s "")))))
    (if (> (length s) 90) (concat (substring s 0 89) "…") s)))

(defun ccdag-graph-text--render (g)
  "Insert the workflow graph G (a plist) as text.
One section per lane, one line per node."
  (let* ((nodes (append (plist-get g :nodes) nil))
         (edges (append (plist-get g :edges) nil))
         (lanes (append (plist-get g :lanes) nil))
         (session (plist-get g :session))
         (label (make-hash-table :test #'equal))
         (spawns (make-hash-table :test #'equal))
         (lane-of (make-hash-table :test #'equal)))
    (dolist (n nodes) (puthash (plist-get n :id) (plist-get n :lane) lane-of))
    (dolist (l lanes) (puthash (plist-get l :id) (or (plist-get l :label) (plist-get l :id)) label))
    (dolist (e edges)
      (when (equal (plist-get e :kind) "spawn")
        (push (gethash (plist-get e :target) lane-of) (gethash (plist-get e :source) spawns))))
    (insert (format "Session %s: %d nodes, %d edges, %d lanes\n" (plist-get session :id)
                    (length nodes) (length edges) (length lanes)))
    (insert "[U] user  [T] thought  [A] action  [O] result  [S] system  [x] inactive branch  ⇒ spawn\nRET jump to the record   q close\n")
    (dolist (l lanes)
      (let ((id (plist-get l :id)))
        (insert (format "\n== %s%s ==\n" (gethash id label) (if (equal id (gethash id label)) "" (format " (%s)" id))))
        (dolist (n nodes)
          (when (equal (plist-get n :lane) id)
            (let* ((loc (plist-get n :location))
                   (line (and loc (1+ (plist-get (plist-get (plist-get loc :range) :start) :line))))
                   (mark (or (cdr (assoc (plist-get n :kind) ccdag--kind-marks)) (format "[%s]" (plist-get n :kind))))
                   (text (ccdag--oneline (plist-get n :label)))
                   (tool (plist-get n :toolName))
                   (extra (mapcar (lambda (lane) (concat "⇒ " (gethash lane label lane)))
                                  (reverse (gethash (plist-get n :id) spawns))))
                   (beg (point)))
              (when (and tool (equal (plist-get n :kind) "ACTION") (not (string-search tool text)))
                (setq text (concat tool ": " text)))
              (insert (format "%7s %s%s %s%s\n" (if line (number-to-string line) "")
                              (if (eq (plist-get n :active) :json-false) "[x] " "")
                              mark text
                              (if extra (concat "  (" (string-join extra ", ") ")") "")))
              (when loc (put-text-property beg (point) 'ccdag-location loc)))))))))

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
The server's request `ccdag/workflowGraph' gives it."
  (interactive)
  (let* ((g (jsonrpc-request (ccdag--server) :ccdag/workflowGraph
                             `(:textDocument ,(eglot--TextDocumentIdentifier))))
         (buf (get-buffer-create (format "*ccdag-graph %s*" (plist-get (plist-get g :session) :id)))))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (ccdag-graph-text-mode)
        (ccdag-graph-text--render g)
        (goto-char (point-min))))
    (pop-to-buffer buf)
    buf))
(require 'ccdag-reading) ; M-x ccdag-transcript; inlay hints (eglot 1.15+)

(provide 'ccdag)
;;; ccdag.el ends here
