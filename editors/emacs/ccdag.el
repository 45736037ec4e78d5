;;; ccdag.el --- ccdag language server for Claude Code session logs, with eglot  -*- lexical-binding: t; -*-

;; A small configuration, not a package: load it (or copy it into your init file).
;;
;;   (add-to-list 'load-path "/path/to/ccdag/editors/emacs")
;;   (require 'ccdag)
;;   (add-hook 'jsonl-mode-hook #'eglot-ensure)   ; start the server when a log is opened
;;
;; Needs Emacs 28+ and eglot (built in since Emacs 29; Debian: elpa-eglot), and `ccdag' on
;; PATH (or set `ccdag-program').  Diagnostics show through flymake, definitions through xref
;; (M-.), hover through eldoc.  The workflow graph: M-x ccdag-graph writes the HTML picture
;; with `ccdag graph --format html' and opens it with `browse-url-of-file'.

;;; Code:

(require 'eglot)

(defgroup ccdag nil
  "The ccdag language server for Claude Code session logs."
  :group 'tools)

(defcustom ccdag-program "ccdag"
  "The ccdag binary."
  :type 'string)

(defcustom ccdag-severity nil
  "Per-code severity overrides, e.g. ((\"parent-after-child\" . \"hint\")).
Sent as initializationOptions {\"severity\": {...}} and settings {\"ccdag\": {\"severity\": {...}}}."
  :type '(alist :key-type string :value-type string))

(unless (fboundp 'jsonl-mode)
  (define-derived-mode jsonl-mode prog-mode "JSONL"
    "Major mode for JSON Lines files such as Claude Code session logs."
    (setq-local comment-start nil)
    ;; Logs have very long lines: keep redisplay cheap.
    (setq-local bidi-paragraph-direction 'left-to-right)
    (setq-local bidi-inhibit-bpa t)
    (setq-local truncate-lines t)))

(add-to-list 'auto-mode-alist '("\\.jsonl\\'" . jsonl-mode))

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
             `((jsonl-mode :language-id "jsonl")
               . ,(lambda (&optional _interactive)
                    (list ccdag-program "serve"
                          :initializationOptions
                          (lambda (_server) (list :severity (ccdag--severity-object)))))))

;; ...and as settings, pushed with workspace/didChangeConfiguration.
(defun ccdag--workspace-configuration (&optional _server)
  (list :ccdag (list :severity (ccdag--severity-object))))

(defun ccdag--setup-buffer ()
  (setq-local eglot-workspace-configuration #'ccdag--workspace-configuration))

(add-hook 'jsonl-mode-hook #'ccdag--setup-buffer)

(defun ccdag-graph ()
  "Write the workflow graph of this session as HTML and open it in a browser."
  (interactive)
  (let* ((file (or buffer-file-name (user-error "This buffer visits no file")))
         (out (expand-file-name (concat (file-name-base file) ".html") temporary-file-directory))
         (status (call-process ccdag-program nil "*ccdag-graph*" nil
                               "graph" "--format" "html" "-o" out file)))
    (unless (eq status 0)
      (user-error "ccdag graph failed; see the *ccdag-graph* buffer"))
    (browse-url-of-file out)
    out))

(provide 'ccdag)
;;; ccdag.el ends here
