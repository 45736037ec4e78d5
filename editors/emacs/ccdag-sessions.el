;;; ccdag-sessions.el --- The session browser of ccdag  -*- lexical-binding: t; -*-

;;; Commentary:

;; M-x ccdag-sessions (docs/spec.md §10): every Claude Code session of the workspace's
;; .claude/projects folders, newest first, in a `tabulated-list-mode' buffer: when, project, title,
;; tokens (a lower bound marked ≥), cost, resume state and findings.  RET opens the session's main
;; log, g asks again.  The rows come from the server's `ccdag/sessions' request when the buffer
;; the command starts from has a ccdag server, else from `ccdag sessions --format json'.

;;; Code:

(require 'tabulated-list)
(require 'json)
(require 'eglot)
(require 'seq)
(declare-function ccdag--uri-to-path "ccdag" (uri))

(defvar ccdag-program)

(defvar-local ccdag-sessions--server nil
  "The eglot server the list asks, nil when it runs `ccdag sessions'.")

(defun ccdag-sessions--short (n)
  "N with the one number rule of ccdag: 950, 3.3k, 34.5k, 152k, 1.6M, 11.7M."
  (let ((n (or n 0)))
    (if (< n 1000)
        (number-to-string n)
      (let ((v (float n)) (units '("k" "M" "B" "T")) out)
        (while (and units (not out))
          (setq v (/ v 1000.0))
          (unless (and (>= v 999.5) (cdr units))
            (setq out (if (< v 99.95) (format "%.1f%s" v (car units)) (format "%.0f%s" v (car units)))))
          (setq units (cdr units)))
        out))))

(defun ccdag-sessions--fetch (server)
  "The sessions, from SERVER's `ccdag/sessions'.
Without a server, from `ccdag sessions --format json'."
  (if server
      (append (plist-get (jsonrpc-request server :ccdag/sessions (make-hash-table)) :sessions) nil)
    (with-temp-buffer
      (unless (eq 0 (call-process ccdag-program nil '(t nil) nil "sessions" "--format" "json"))
        (user-error "ccdag sessions failed: %s" (buffer-string)))
      (goto-char (point-min))
      (let ((doc (json-parse-buffer :object-type 'plist :array-type 'list :null-object nil :false-object nil)))
        (mapcar (lambda (s)
                  (plist-put s :uri (concat "file://" (expand-file-name (plist-get s :path)))))
                (plist-get doc :sessions))))))

(defun ccdag-sessions--entry (s)
  "The tabulated-list entry of session S (a plist)."
  (let* ((tok (plist-get s :tokens))
         (in (+ (or (plist-get tok :input) 0) (or (plist-get tok :cacheCreation) 0) (or (plist-get tok :cacheRead) 0)))
         (out (concat (if (> (or (plist-get tok :unfinishedMessages) 0) 0) "≥ " "")
                      (ccdag-sessions--short (plist-get tok :output))))
         (cost (plist-get s :cost))
         (res (plist-get s :resume))
         (f (plist-get s :findings))
         (nf (+ (or (plist-get f :error) 0) (or (plist-get f :warning) 0) (or (plist-get f :information) 0) (or (plist-get f :hint) 0)))
         (end (or (plist-get s :end) "")))
    (list (plist-get s :uri)
          (vector (if (>= (length end) 16) (concat (substring end 0 10) " " (substring end 11 16)) "-")
                  (or (plist-get s :project) "")
                  (let ((title (plist-get s :title))) (if (and title (not (string-empty-p title))) title (plist-get s :id)))
                  (format "%s/%s" out (ccdag-sessions--short in))
                  (cond ((> (or (plist-get cost :priced) 0) 0)
                         (format "%s$%.2f" (if (> (or (plist-get cost :unpriced) 0) 0) "≥ " "") (or (plist-get cost :usd) 0)))
                        ((> (or (plist-get cost :unpriced) 0) 0) "unpriced")
                        (t "-"))
                  (cond ((null res) "-")
                        ((eq (plist-get res :complete) t) "ok")
                        ((plist-get res :brokenAt) (format "loses %s" (plist-get res :lost)))
                        (t "ok"))
                  (number-to-string nf)
                  ;; the day Claude Code deletes it (cleanupPeriodDays, docs/spec.md §11)
                  (let ((d (plist-get s :deletes))) (if (and (stringp d) (not (string-empty-p d))) d "-"))))))

(defun ccdag-sessions--refresh ()
  "Ask for the sessions again."
  (setq tabulated-list-entries (mapcar #'ccdag-sessions--entry (ccdag-sessions--fetch ccdag-sessions--server))))

(defun ccdag-sessions-open ()
  "Open the main log of the session at point."
  (interactive)
  (let ((uri (tabulated-list-get-id)))
    (unless uri (user-error "No session on this line"))
    (find-file (ccdag--uri-to-path uri))))

(defvar ccdag-sessions-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "RET") #'ccdag-sessions-open)
    m))

(define-derived-mode ccdag-sessions-mode tabulated-list-mode "ccdag-sessions"
  "The Claude Code sessions.  RET opens one, g asks again."
  (setq tabulated-list-format [("When" 16 t) ("Project" 20 t) ("Title" 50 t) ("Tokens out/in" 14 t)
                               ("Cost" 9 t) ("Resume" 9 t) ("Findings" 8 t) ("Deleted" 10 t)])
  (setq tabulated-list-padding 1)
  (add-hook 'tabulated-list-revert-hook #'ccdag-sessions--refresh nil t)
  (tabulated-list-init-header))

;;;###autoload
(defun ccdag-sessions ()
  "List the Claude Code sessions (request `ccdag/sessions').
RET opens one, g refreshes."
  (interactive)
  (let ((server (ignore-errors (eglot-current-server)))
        (buf (get-buffer-create "*ccdag-sessions*")))
    (with-current-buffer buf
      (ccdag-sessions-mode)
      (setq ccdag-sessions--server server)
      (ccdag-sessions--refresh)
      (tabulated-list-print))
    (pop-to-buffer buf)
    buf))

(provide 'ccdag-sessions)
;;; ccdag-sessions.el ends here
