;;; test.el --- Emacs + eglot batch test of editors/emacs/ccdag.el against the real `ccdag serve'  -*- lexical-binding: t; -*-
;; Run by editors/emacs/test/run.sh:  emacs --batch -Q -l test.el   (exit code = verdict)

(setq package-directory-list '("/usr/share/emacs/site-lisp/elpa"))
(package-initialize)
(add-to-list 'load-path (expand-file-name "editors/emacs" (getenv "CCDAG_ROOT")))
(require 'ccdag)
(require 'cl-lib)

(setq ccdag-severity '(("missing-agent-file" . "warning"))) ; default information: proves the option reaches the server
;; Bounds for hangs, not a pace: the machine may be busy.
(with-no-warnings (setq jsonrpc-default-request-timeout 60))
(setq eglot-connect-timeout 60)
;; Batch Emacs has no command loop to deliver file notifications: auto-revert polls here.
(setq auto-revert-interval 0.5 auto-revert-use-notify nil) ; auto-revert-verbose stays t (the default): ccdag follows quietly
(setq eglot-sync-connect t
      eglot-autoshutdown nil
      eglot-events-buffer-size 0)

(defvar test-main (getenv "CCDAG_TEST_MAIN"))
;; missing-agent-file: the corpus README's seven, and 551 and 707 which its table leaves out (their
;; agents' logs, aa12c48 and a9e9b60, are not in subagents/); the compaction at 625 names a logical
;; parent that is in no file.
(defvar test-expected '(24 27 36 42 51 378 381 551 707))
(defvar test-expected-other '("625 unresolved-logical-parent"))
(defvar test-passed 0)
(defvar test-failed 0)

(defun test-out (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n")))

(defmacro test-step (name &rest body)
  (declare (indent 1))
  `(condition-case err
       (progn ,@body (cl-incf test-passed) (test-out "ok   - %s" ,name) t)
     (error (cl-incf test-failed) (test-out "FAIL - %s\n       %s" ,name (error-message-string err)) nil)))

(defun test-wait (what pred &optional secs)
  (let ((deadline (+ (float-time) (or secs 60))))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (error "Timed out waiting for %s" what))))

(defun test-goto-value (line key value)
  "Point on the first character of the JSON string VALUE of KEY on LINE."
  (goto-char (point-min))
  (forward-line (1- line))
  (unless (search-forward (format "\"%s\":\"%s\"" key value) (line-end-position) t)
    (error "Line %d has no %s=%s" line key value))
  (goto-char (+ (match-beginning 0) (length key) 4)))

(defun test-definition ()
  "xref definitions at point through eglot, as (FILE . LINE) pairs."
  (mapcar (lambda (x)
            (let ((loc (xref-item-location x)))
              (cons (xref-location-group loc) (xref-location-line loc))))
          (xref-backend-definitions 'eglot (xref-backend-identifier-at-point 'eglot))))

(defun test-line-of (needle)
  (save-excursion
    (goto-char (point-min))
    (and (search-forward needle nil t) (line-number-at-pos))))

;; ---- M-x ccdag-resume, held to the CLI

(defun test-cli (&rest args)
  "The standard output of `ccdag ARGS' (its exit code is check's: not a verdict here)."
  (with-temp-buffer
    (apply #'call-process "ccdag" nil '(t nil) nil args)
    (buffer-string)))

(defun test-resume-step (log version &optional drops)
  "M-x ccdag-resume in LOG shows `ccdag resume' [--claude-version VERSION]'s text.
Its figures are those of --format json, it has DROPS dropped entries (when
given), and RET on a record's line goes to that line of the log."
  (set-buffer log)
  (switch-to-buffer log)
  (test-step (format "M-x ccdag-resume on %s%s: the text and figures of `ccdag resume%s'; RET jumps"
                     (file-name-nondirectory buffer-file-name) (if version (concat ", ccdag-claude-version " version) "")
                     (if version (concat " --claude-version " version) ""))
    (let* ((file buffer-file-name)
           (flags (and version (list "--claude-version" version)))
           (want (apply #'test-cli "resume" (append flags (list file))))
           (json (json-parse-string (apply #'test-cli "resume" "--format" "json" (append flags (list file)))
                                    :object-type 'plist :array-type 'list :null-object nil :false-object nil))
           (res (plist-get json :resume))
           (loader (plist-get res :loader))
           (buf (ccdag-resume))
           text)
      (unless (eq (window-buffer (selected-window)) buf) (error "the preview window is not selected"))
      (with-current-buffer buf
        (unless (eq major-mode 'ccdag-resume-mode) (error "mode %s" major-mode))
        (unless buffer-read-only (error "the preview buffer is writable"))
        ;; wrapped: the key words at the end of a long line ("lost") stay on screen
        (when truncate-lines (error "the preview truncates its lines"))
        (setq text (buffer-string)))
      (unless (string= text want)
        (error "the preview differs from `ccdag resume':
--- preview
%s
--- cli
%s" text want))
      ;; The figures of the JSON, read in the text (not through the renderer the two share).
      (unless (string-match-p (regexp-quote (format "as Claude Code %s will load it" (plist-get loader :version))) text)
        (error "no loader %S in %S" loader (substring text 0 (min 300 (length text)))))
      (when (and version (not (string= (plist-get loader :version) version)))
        (error "the CLI's loader is %S, want %s" loader version))
      (unless (string-match-p (format "^%d records sent of %d on the chain" (length (plist-get json :chain)) (plist-get res :records)) text)
        (error "no \"%d records sent of %d\"" (length (plist-get json :chain)) (plist-get res :records)))
      (when (and drops (/= drops (length (plist-get json :dropped))))
        (error "`ccdag resume --format json' drops %d, want %d" (length (plist-get json :dropped)) drops))
      (dolist (d (plist-get json :dropped))
        (unless (string-match-p (format "^ +%d  %s +%s$" (plist-get d :line) (regexp-quote (plist-get d :what)) (regexp-quote (plist-get d :id))) text)
          (error "dropped %S not shown" d)))
      ;; RET on the last chain record's line, then on the last dropped one's: the log's line.
      (dolist (want-line (delq nil (list (plist-get (car (last (plist-get json :chain))) :line)
                                         (plist-get (car (last (plist-get json :dropped))) :line))))
        (pop-to-buffer buf)
        (goto-char (point-max))
        (unless (re-search-backward (format "^ +%d  " want-line) nil t) (error "no line for %d" want-line))
        (ccdag-resume-jump)
        (unless (and (eq (current-buffer) log) (= (line-number-at-pos) want-line))
          (error "RET went to %s line %d, want %d" (current-buffer) (line-number-at-pos) want-line)))
      (test-out "       loader %s (%s), %d sent of %d, %d dropped"
                (plist-get loader :version) (plist-get loader :from) (length (plist-get json :chain))
                (plist-get res :records) (length (plist-get json :dropped)))
      (kill-buffer buf)
      (set-buffer log))))

;; ---- M-x ccdag-sessions: columns of figures sorted by their numbers

(defvar test-sessions-figures
  `(("When (local)" . ,(lambda (r) (let ((e (plist-get r :end))) (and e (not (string-empty-p e)) (float-time (parse-iso8601-time-string e))))))
    ;; the deletion day, soonest first; a session Claude Code's sweep does not reach: never
    ("Deletes" . ,(lambda (r) (let ((d (plist-get r :deletes)))
                                (if (and d (not (string-empty-p d))) (string-to-number (replace-regexp-in-string "-" "" d)) 1.0e+INF))))
    ("Tokens out/in" . ,(lambda (r) (plist-get (plist-get r :tokens) :output)))
    ("Cost" . ,(lambda (r) (let ((c (plist-get r :cost))) (and (> (plist-get c :priced) 0) (plist-get c :usd)))))
    ("Resume" . ,(lambda (r) (let ((res (plist-get r :resume))) (and res (if (plist-get res :brokenAt) (plist-get res :lost) 0)))))
    ("Findings" . ,(lambda (r) (let ((f (plist-get r :findings)))
                                 (apply #'+ (mapcar (lambda (k) (plist-get f k)) '(:error :warning :information :hint))))))
    ;; not a figure, but a column whose cells are cut ("…k/repos/erk/worktrees/erk-slot-37"): sorted
    ;; by the whole folder, not by the text shown (every cut one came last)
    ("Project (cwd)" . ,(lambda (r) (or (plist-get r :project) (plist-get r :projectFolder)))))
  "The browser's sorted columns, each with its figure (or text) read from a row's JSON.")

(defun test-sessions-in-order (column figure descending)
  "The rows shown are in order of FIGURE (of a row's JSON) for COLUMN.
DESCENDING: largest first.  A row without a figure (nil: \"-\",
\"unpriced\") counts as less than any."
  (let ((less (lambda (a b) (and b (or (null a) (if (stringp a) (string< a b) (< a b))))))
        values)
    (goto-char (point-min))
    (while (not (eobp))
      (push (funcall figure (gethash (tabulated-list-get-id) ccdag-sessions--rows)) values)
      (forward-line 1))
    (setq values (nreverse values))
    (unless (= (length values) (hash-table-count ccdag-sessions--rows)) (error "%d rows shown" (length values)))
    (when (equal (car values) (car (last values))) (error "%s: the first and last rows are alike (%S)" column (car values)))
    (cl-loop for (a b) on values while b
             when (if descending (funcall less a b) (funcall less b a))
             do (error "%s %s: %S before %S" column (if descending "descending" "ascending") a b))
    (goto-char (point-min))
    (test-out "       %s %s: %s first" column (if descending "descending" "ascending")
              (string-trim (substring-no-properties
                            (aref (cadr (assoc (tabulated-list-get-id) tabulated-list-entries))
                                  (tabulated-list--column-number column)))))))

;; eglot reads `eglot-events-buffer-size' when it connects; jsonrpc reads the connection's
;; own size each time it logs.
(defun test-events-buffer-size (server size)
  "Log at most SIZE characters of SERVER's messages in its events buffer."
  (if (slot-exists-p server '-events-buffer-scrollback-size) ; jsonrpc 1.0.14 (Emacs 28)
      (setf (slot-value server '-events-buffer-scrollback-size) size)
    (setf (slot-value server '-events-buffer-config)
          (plist-put (copy-sequence (slot-value server '-events-buffer-config)) :size size))))

(defun test-run ()
  (find-file test-main)
  (test-step "ccdag-jsonl-mode for .jsonl"
    (unless (memq major-mode '(ccdag-jsonl-mode jsonl-mode)) (error "major mode is %s" major-mode)))
  (test-step "eglot connects to ccdag serve"
    (apply #'eglot (eglot--guess-contact))
    (test-wait "the server" (lambda () (eglot-current-server)))
    (unless (eglot--server-capable :definitionProvider) (error "no definitionProvider")))
  (test-step "flymake: one missing-agent-file (as warning) at 24 for the calls at 24 27 36 42 51 378 381 551 707, unresolved-logical-parent at 625, nothing else"
    (test-wait "diagnostics" (lambda () (flymake-diagnostics)))
    (let (lines other)
      (dolist (d (flymake-diagnostics))
        (let ((line (line-number-at-pos (flymake-diagnostic-beg d)))
              (text (flymake-diagnostic-text d)))
          (cond ((string-match-p "\\[missing-agent-file\\]" text)
                 (unless (eq (flymake-diagnostic-type d) 'eglot-warning)
                   (error "line %d: type %s, want eglot-warning" line (flymake-diagnostic-type d)))
                 ;; one diagnostic on the first call, each call in its related information
                 (unless (= line (car test-expected)) (error "missing-agent-file on line %d" line))
                 (let ((spec (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d)))))
                   (unless (< (length (plist-get spec :message)) 120)
                     (error "missing-agent-file message of 120 characters or more: %s" (plist-get spec :message)))
                   (seq-doseq (ri (plist-get spec :relatedInformation))
                     (push (1+ (plist-get (plist-get (plist-get (plist-get ri :location) :range) :start) :line)) lines))))
                ((string-match-p "\\[parent-after-child\\]" text))
                ((string-match "\\[\\([a-z-]+\\)\\]" text)
                 (push (format "%d %s" line (match-string 1 text)) other))
                (t (push (format "%d %s" line text) other)))))
      (unless (equal (sort lines #'<) test-expected) (error "missing-agent-file lines %S" (sort lines #'<)))
      (setq other (sort other #'string<))
      (unless (equal other test-expected-other) (error "other diagnostics: %S" other))))
  ;; Batch Emacs draws no mode line (format-mode-line gives ""): held by the setting the mode line
  ;; reads; seen in `emacs -nw' (docs: editors/emacs/README.md).
  (test-step "the mode line shows the line number (L615), not L?? (long lines): no width limit"
    (unless (and (local-variable-p 'line-number-display-limit-width)
                 (>= line-number-display-limit-width (* 100 1024 1024)))
      (error "line-number-display-limit-width is %S" line-number-display-limit-width)))
  (let* ((id "toolu_017xTxSdx33AzofDvxdCpABD")
         (call (test-line-of (format "\"id\":\"%s\",\"name\":\"Task\"" id)))
         (result (test-line-of (format "\"tool_use_id\":\"%s\"" id))))
    (test-step (format "definition (xref) from a tool_use_id value on line %s: the call on line %s" result call)
      (test-goto-value result "tool_use_id" id)
      (let ((defs (test-definition)))
        (unless (equal defs (list (cons test-main call))) (error "definitions %S" defs))))
    (test-step "definition from an agentId value (after CJK text): the sub-agent log"
      (test-goto-value result "agentId" "ac6b686")
      (let ((defs (test-definition)))
        (unless (and defs (string-suffix-p "/subagents/agent-ac6b686.jsonl" (car (car defs))))
          (error "definitions %S" defs))))
    (test-step "M-. into subagents/: the same eglot server (one for all of .claude/projects)"
      (let ((server (eglot-current-server))
            (main (current-buffer)))
        (test-goto-value result "agentId" "ac6b686")
        (find-file (car (car (test-definition))))
        (unwind-protect
            (progn
              (unless eglot--managed-mode (error "the sub-agent log is not managed by eglot"))
              (unless (eq (eglot-current-server) server) (error "a second server: %S" (eglot-current-server)))
              (let ((n 0)) (maphash (lambda (_ ss) (setq n (+ n (length ss)))) eglot--servers-by-project)
                   (unless (= n 1) (error "%d servers" n))))
          (kill-buffer (current-buffer))
          (switch-to-buffer main))))
    (test-step "only logs under .claude/projects are served by default; ccdag-all-jsonl serves every .jsonl"
      (let ((other (make-temp-file "ccdag-other-" nil ".jsonl")))
        (unwind-protect
            (with-temp-buffer
              (setq buffer-file-name other)
              (when (ccdag-session-log-p) (error "%s is served" other))
              (let ((ccdag-all-jsonl t))
                (unless (ccdag-session-log-p) (error "%s is not served with ccdag-all-jsonl" other)))
              (setq buffer-file-name nil))
          (delete-file other)))
      (unless (ccdag-session-log-p) (error "the session log is not served")))
    (test-step "M-x ccdag-parent: the record parentUuid names"
      (goto-char (point-min))
      (forward-line (1- result))
      (let* ((line (buffer-substring-no-properties (line-beginning-position) (line-end-position)))
             (parent (progn (string-match "\"parentUuid\":\"\\([^\"]+\\)\"" line) (match-string 1 line)))
             (want (test-line-of (format "\"uuid\":\"%s\"" parent))))
        (ccdag-parent)
        (unless (= (line-number-at-pos) want) (error "at line %d, want %d" (line-number-at-pos) want))))
    (test-step "M-x ccdag-graph-text: lanes, kinds, the spawn; RET jumps to the record"
      (let ((buf (ccdag-graph-text)) row)
        (progn
          (set-buffer buf)
          (let ((text (buffer-string)))
            (dolist (want '("\n== main" "agent-ac6b686" "[U]" "[T]" "[A]" "[O]" "⇒"))
              (unless (string-search want text) (error "no %s in:\n%s" want (substring text 0 (min 2000 (length text)))))))
          (goto-char (point-min))
          (unless (re-search-forward (format "^ *%d +\\(↳ \\)?\\[A\\].*⇒" call) nil t) (error "no [A] node with its spawn at line %d" call))
          (setq row (line-number-at-pos))
          (test-out "       %s" (buffer-substring (line-beginning-position) (line-end-position)))
          (unless (get-text-property (point) 'ccdag-location) (error "the line has no location"))
          (ccdag-graph-text-jump)
          (set-buffer (window-buffer (selected-window))))
        (unless (and (equal (buffer-file-name) test-main) (= (line-number-at-pos) call))
          (error "RET went to %s line %d (graph row %d)" (buffer-file-name) (line-number-at-pos) row))
        (switch-to-buffer (find-buffer-visiting test-main))))
    (test-step "M-x ccdag-graph: a new file (make-temp-file), and it says where"
      (let* ((browse-url-browser-function #'ignore)
             (out (ccdag-graph))
             (msg (with-current-buffer "*Messages*" (buffer-string))))
        (unless (and out (file-exists-p out)) (error "no file %S" out))
        (when (equal out (expand-file-name (concat (file-name-base test-main) ".html") temporary-file-directory))
          (error "the predictable name %s" out))
        (unless (string-match-p "<html" (with-temp-buffer (insert-file-contents out) (buffer-string))) (error "not HTML"))
        (unless (and msg (string-search out msg)) (error "message %S does not name %s" msg out))
        (delete-file out)))
    (test-step "hover on the Task call"
      (test-goto-value call "name" "Task")
      (let* ((res (jsonrpc-request (eglot-current-server) :textDocument/hover
                                   (eglot--TextDocumentPositionParams)))
             (contents (plist-get res :contents))
             (text (if (stringp contents) contents (plist-get contents :value))))
        (unless (and text (string-match-p "Task" text)) (error "hover %S" res))))
    (test-step "the sub-agent log's first record: hover names the spawning call, ccdag.parent goes to it"
      (let* ((server (eglot-current-server))
             (agent (concat (file-name-sans-extension test-main) "/subagents/agent-ac6b686.jsonl"))
             (uri (eglot--path-to-uri agent))
             (pos `(:textDocument (:uri ,uri) :position (:line 0 :character 1))))
        (jsonrpc-notify server :textDocument/didOpen
                        `(:textDocument (:uri ,uri :languageId "jsonl" :version 1
                                         :text ,(with-temp-buffer (insert-file-contents agent) (buffer-string)))))
        (let* ((res (jsonrpc-request server :textDocument/hover pos))
               (contents (plist-get res :contents))
               (text (if (stringp contents) contents (plist-get contents :value))))
          (unless (and text (string-match-p "Spawned by" text) (string-match-p id text)) (error "hover %S" res)))
        (let* ((res (jsonrpc-request server :workspace/executeCommand
                                     `(:command "ccdag.parent" :arguments [,pos])))
               (loc (plist-get res :location)))
          (unless (and loc (equal (file-truename (eglot--uri-to-path (plist-get loc :uri))) (file-truename test-main))
                       (= (1+ (plist-get (plist-get (plist-get loc :range) :start) :line)) call))
            (error "ccdag.parent %S, want line %s of the main log" res call)))
        (jsonrpc-notify server :textDocument/didClose `(:textDocument (:uri ,uri))))))
  (test-step "xref-find-apropos (workspace/symbol): a prompt of the session, at its line"
    (let ((want (save-excursion
                  (goto-char (point-min))
                  (and (re-search-forward "\"type\":\"user\".*skill.*頁面模組" nil t) (line-number-at-pos))))
          items)
      (unless want (error "the log has no such prompt"))
      ;; the index is built in the background: ask until it answers
      (test-wait "the workspace symbol index"
                 (lambda () (setq items (xref-backend-apropos 'eglot "skill 頁面模組"))))
      (let* ((loc (xref-item-location (car items)))
             (file (xref-location-group loc))
             (line (xref-location-line loc)))
        (unless (and (equal (file-truename file) (file-truename test-main)) (equal line want))
          (error "first item %S line %S, want %s line %s" file line test-main want))
        (test-out "       %s" (xref-item-summary (car items)))
        ;; the other project's session: found too, in its own file
        (let ((erk (cl-find-if (lambda (x) (string-match-p "-Users-x-erk/1b2fa935" (xref-location-group (xref-item-location x))))
                               (xref-backend-apropos 'eglot "erk:plan-implement"))))
          (unless erk (error "no symbol of the second project"))
          (test-out "       %s" (xref-item-summary erk)))
        ;; M-x ccdag-find-symbol: labelled as the server names them, never the raw JSON line
        (let* ((log (current-buffer))
               (cands (ccdag--symbol-candidates "erk:plan-implement"))
               (label (car (cl-find-if (lambda (c) (string-match-p "-Users-x-erk · /erk:plan-implement · 2026-02-25 · L3\\'" (car c))) cands))))
          (unless label (error "candidates %S" (mapcar #'car cands)))
          (when (cl-some (lambda (c) (string-match-p "{\"" (car c))) cands) (error "a raw JSON label in %S" (mapcar #'car cands)))
          (cl-letf (((symbol-function 'completing-read) (lambda (&rest _) label)))
            (ccdag-find-symbol "erk:plan-implement"))
          (unless (and (string-match-p "-Users-x-erk/1b2fa935" (or buffer-file-name "")) (= (line-number-at-pos) 3))
            (error "ccdag-find-symbol went to %s line %d" buffer-file-name (line-number-at-pos)))
          (test-out "       %s" label)
          (switch-to-buffer log)))))
  (test-step "per-turn figures (eglot has no code lens): the server's lenses as lines above their records"
    (set-buffer (find-buffer-visiting test-main))
    (test-wait "the figure overlays" (lambda () (> (length ccdag--lens-overlays) 1)))
    (let (texts)
      (dolist (ov ccdag--lens-overlays)
        (push (cons (line-number-at-pos (overlay-start ov)) (overlay-get ov 'before-string)) texts))
      (setq texts (sort texts (lambda (a b) (< (car a) (car b)))))
      (unless (and (= (caar texts) 1) (string-match-p "^session: [0-9]+ turns · ≥ 90 out · 5.3M in\\+cache · ≥ \\$6.33 (incl. 2 sub-agents)" (cdar texts)))
        (error "line 1: %S" (car texts)))
      (unless (string-match-p "tool calls? · .*out · .* in\\+cache" (cdr (cadr texts)))
        (error "the first turn's figures: %S" (cadr texts)))
      (test-out "       %s" (string-trim (cdr (cadr texts))))))
  (test-step "the lenses Show Workflow Graph and Open Transcript run their commands: mouse-1 or mouse-2 on them, C-c C-l on the record's line"
    (let* ((log (switch-to-buffer (find-buffer-visiting test-main)))
           (ov (cl-find-if (lambda (o) (= (line-number-at-pos (overlay-start o)) 1)) ccdag--lens-overlays))
           (str (and ov (overlay-get ov 'before-string)))
           (at (lambda (title) (or (string-search title str) (error "no %s in %S" title str))))
           (posn (lambda (title) ; where a click on TITLE lands
                   (list (selected-window) (overlay-start ov) '(0 . 0) 0 (cons str (funcall at title)) (overlay-start ov)))))
      (when (get-text-property 0 'button str) (error "the figures are a button: %S" str))
      (dolist (title '("Show Workflow Graph" "Open Transcript"))
        (unless (mouse-on-link-p (funcall posn title)) (error "mouse-1 on %s is no click" title))
        (unless (eq (key-binding [mouse-2] t nil (funcall posn title)) 'push-button)
          (error "mouse-2 on %s runs %S" title (key-binding [mouse-2] t nil (funcall posn title)))))
      ;; a click on Open Transcript, as the command loop dispatches it
      (push-button (list 'mouse-2 (funcall posn "Open Transcript")))
      (set-buffer (window-buffer (selected-window))) ; as the command loop does after a command
      (unless (eq major-mode 'ccdag-transcript-mode) (error "the click opened %s (%s)" (current-buffer) major-mode))
      (unless (string-match-p "^## Turn 1 " (buffer-string)) (error "not the transcript: %S" (buffer-substring 1 (min 200 (point-max)))))
      (kill-buffer (current-buffer))
      (delete-other-windows)
      (switch-to-buffer log)
      ;; C-c C-l on line 1: the lenses drawn above it, Show Workflow Graph chosen
      (goto-char (point-min))
      (let* ((browse-url-browser-function #'ignore)
             (offered nil)
             (out (cl-letf (((symbol-function 'completing-read)
                             (lambda (_prompt coll &rest _) (setq offered (mapcar #'car coll)) "Show Workflow Graph")))
                    (call-interactively (key-binding (kbd "C-c C-l"))))))
        (unless (equal offered '("Show Workflow Graph" "Open Transcript")) (error "C-c C-l offered %S" offered))
        (unless (and (stringp out) (file-exists-p out)) (error "Show Workflow Graph wrote %S" out))
        (delete-file out))
      (forward-line 2)
      (when (ignore-errors (ccdag-lens-run) t) (error "C-c C-l ran a lens of the figures of a turn"))
      (goto-char (point-min))))
  (test-step "M-x ccdag-sessions writes a cost as the server does (prices.Nano.String, its test values and VS Code's): $0.412, not $0.41; the column sorts by the amount"
    ;; nano-dollars -> what the server writes (internal/prices TestNanoString, TestBoundedAmounts;
    ;; editors/vscode/test/sessionsFormat.test.mjs); the amount reaches the editor as its dollars
    (dolist (c '((0 "$0") (50000 "< $0.0001") (100000 "$0.0001") (1200000 "$0.0012") (4200000 "$0.0042")
                 (10000000 "$0.01") (36300000 "$0.036") (36500000 "$0.036") (62500000 "$0.062") (187500000 "$0.188")
                 (301000000 "$0.301") (412000000 "$0.412") (420000000 "$0.42") (500000000 "$0.50") (994000000 "$0.994")
                 (995000000 "$1.00") (4205000000 "$4.21") (4210000000 "$4.21") (5290000000 "$5.29") (12345000000 "$12.35")
                 (999990000000 "$999.99") (1234400000000 "$1,234") (12345678000000 "$12,346") (1234567000000000 "$1,234,567")
                 (9223372036854775807 "$9,223,372,037")))
      (let ((got (ccdag-sessions--dollars (/ (car c) 1e9))))
        (unless (equal got (cadr c)) (error "%d nano-dollars: %S, want %S" (car c) got (cadr c)))))
    ;; in a row: the figure, "≥ " when it is a lower bound, "unpriced" for a model the table lacks;
    ;; sorted by the amount, not the text ("$0.412" before "$10.00" before "≥ $12.35")
    (let* ((costs '(((:usd 12.345 :priced 3 :unpriced 1) "≥ $12.35") ((:usd 0.412 :priced 3 :unpriced 0) "$0.412")
                    ((:usd 5.29 :priced 3 :unpriced 0 :lowerBound t) "≥ $5.29") ((:usd 0.00005 :priced 1 :unpriced 0) "< $0.0001")
                    ((:usd 10.0 :priced 1 :unpriced 0) "$10.00") ((:usd 0.301 :priced 1 :unpriced 0) "$0.301")
                    ((:usd 0 :priced 0 :unpriced 2) "unpriced")))
           (cells (mapcar (lambda (c)
                            (let ((cell (aref (cadr (ccdag-sessions--entry (list :id "x" :uri "file:///x.jsonl" :cost (car c)))) 4)))
                              (unless (equal (substring-no-properties cell) (cadr c))
                                (error "the cost %S: %S, want %S" (car c) cell (cadr c)))
                              cell))
                          costs))
           (sorted (sort (copy-sequence cells)
                         (lambda (a b) (ccdag-sessions--key< (get-text-property 0 'ccdag-sessions-key a)
                                                             (get-text-property 0 'ccdag-sessions-key b))))))
      (unless (equal (mapcar #'substring-no-properties sorted)
                     '("unpriced" "< $0.0001" "$0.301" "$0.412" "≥ $5.29" "$10.00" "≥ $12.35"))
        (error "the costs sort as %S" (mapcar #'substring-no-properties sorted)))))
  (test-step "M-x ccdag-sessions at eglot's default events buffer returns at once and fills as the rows stream in (400+ sessions, cold cache); Emacs answers keys meanwhile; rows read as a person reads them, logged as their count; RET opens, g asks again"
    (let* ((log (current-buffer))
           (server (eglot-current-server))
           ;; eglot's default, where each message is also logged (the rest of the test runs with it off)
           (_ (test-events-buffer-size server (eval (car (get 'eglot-events-buffer-size 'standard-value)))))
           (erk (expand-file-name "../-Users-x-erk/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl" (file-name-directory test-main)))
           (t0 (float-time))
           ;; overdue: last written 60 days ago (cleanupPeriodDays 30): deleted at Claude Code's next start
           (_ (set-file-times erk (time-subtract nil (* 60 86400))))
           ;; a session where nothing was said (a snapshot only): dimmed
           (empty-log (expand-file-name "77777777-7777-4777-8777-777777777777.jsonl" (file-name-directory test-main)))
           (_ (with-temp-file empty-log
                (insert "{\"type\":\"file-history-snapshot\",\"messageId\":\"m1\",\"snapshot\":{\"messageId\":\"m1\",\"trackedFileBackups\":{},\"timestamp\":\"2026-01-01T00:00:00.000Z\"},\"isSnapshotUpdate\":false}\n")))
           (buf (ccdag-sessions))
           (t-ret (float-time))
           first)
      (unwind-protect
          (with-current-buffer buf
            (unless (eq major-mode 'ccdag-sessions-mode) (error "mode %s" major-mode))
            ;; returned before any answer (async callbacks run only while Emacs waits for input)
            (when (or ccdag-sessions--done (> ccdag-sessions--batches 0)) (error "answered before the command returned"))
            ;; a key works at once: M-> (end of buffer)
            (execute-kbd-macro (kbd "M->"))
            (unless (eobp) (error "M-> did not move"))
            (test-wait "the first rows" (lambda () (> ccdag-sessions--batches 0)))
            (setq first (length tabulated-list-entries))
            (test-wait "the whole list" (lambda () ccdag-sessions--done) 120)
            (when ccdag-sessions--error (error "the list failed: %s" ccdag-sessions--error))
            ;; and a key is handled once it is in
            (execute-kbd-macro (kbd "M-<"))
            (execute-kbd-macro (kbd "n"))
            (unless (= (line-number-at-pos) 2) (error "M-< n went to line %d" (line-number-at-pos)))
            (let ((total (length tabulated-list-entries)))
              (unless (>= total 403) (error "%d rows" total))
              (unless (>= ccdag-sessions--batches 2) (error "rows came in %d batch(es)" ccdag-sessions--batches))
              (unless (< 0 first total) (error "the first batch showed %d rows of %d" first total))
              (test-out "       %d sessions: M-x ccdag-sessions returned in %.0f ms, first %d rows at %.0f ms, all at %.0f ms, %d batches (load %s)"
                        total (* 1000 (- t-ret t0)) first (* 1000 (- (nth 1 ccdag-sessions--times) t0))
                        (* 1000 (- (nth 2 ccdag-sessions--times) t0)) ccdag-sessions--batches
                        (car (split-string (with-temp-buffer (insert-file-contents "/proc/loadavg") (buffer-string))))))
            (let* ((row (append (cadr (assoc (ccdag--path-to-uri test-main) tabulated-list-entries)) nil))
                   (erow (append (cadr (cl-find-if (lambda (e) (string-match-p "1b2fa935" (car e))) tabulated-list-entries)) nil))
                   (deleted (format-time-string "%F" (time-add (file-attribute-modification-time (file-attributes test-main)) (* 30 86400)))))
              ;; local time (TZ=Asia/Taipei: UTC+8), the deletion day, the folder it ran in (its cwd, ~)
              (unless (equal (seq-take row 3) (list "2026-02-01 03:22" deleted "~/Desktop/project/webtech-monorepo"))
                (error "row %S" row))
              (unless (equal (seq-subseq row 3 6) '("≥ 90/5.3M" "≥ $6.33" "ok")) (error "figures %S" row))
              (unless (string-prefix-p "我發現claude code skill" (car (last row))) (error "title %S" row))
              (test-out "       %s" (mapconcat #'substring-no-properties row " | "))
              (unless (equal (nth 1 erow) "at next start") (error "the overdue session's row %S" erow))
              (let ((cells (append (cadr (assoc (ccdag--path-to-uri empty-log) tabulated-list-entries)) nil)))
                (unless (and cells (eq (get-text-property 0 'face (car (last cells))) 'ccdag-sessions-empty))
                  (error "the empty session is not dimmed: %S" cells)))
              (test-out "       %s" (mapconcat #'substring-no-properties erow " | ")))
            (set-file-times erk)
            (revert-buffer) ; g
            (when ccdag-sessions--done (error "g answered before it returned"))
            (test-wait "the list again" (lambda () ccdag-sessions--done) 120)
            ;; eglot's events buffer has each batch and answer, their rows as a count: pretty-printing
            ;; megabytes of rows there held Emacs for half a second at the end of a list
            (with-current-buffer (jsonrpc-events-buffer server)
              (goto-char (point-min))
              (when (search-forward ":projectFolder" nil t) (error "rows logged in eglot's events buffer"))
              (unless (>= (how-many "rows, not logged" (point-min) (point-max)) 4)
                (error "the batches and answers are not in eglot's events buffer (%d bytes)" (buffer-size))))
            (goto-char (point-min))
            (while (and (not (equal (tabulated-list-get-id) (ccdag--path-to-uri test-main))) (not (eobp))) (forward-line 1))
            (ccdag-sessions-open)
            (unless (equal (file-truename buffer-file-name) (file-truename test-main))
              (error "RET opened %s" buffer-file-name)))
        (test-events-buffer-size server 0)
        (switch-to-buffer log))))
  (test-step "M-x ccdag-sessions: a column of figures sorts by its numbers (the rows' JSON), not its text, its header clicked once and twice"
    (let ((erk (expand-file-name "../-Users-x-erk/1b2fa935-2b3c-47c3-a234-caee199c619b.jsonl" (file-name-directory test-main)))
          (orphans (expand-file-name "12121212-1212-4212-8212-121212121212.jsonl" (file-name-directory test-main))))
      (with-current-buffer "*ccdag-sessions*"
        ;; one session overdue again (as in the step above): the deletion days differ
        (set-file-times erk (time-subtract nil (* 60 86400)))
        ;; a session of 12 orphans: 12 findings (the others have fewer than 10) and a resume that loses one
        (with-temp-file orphans
          (insert "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"version\":\"2.1.120\",\"isSidechain\":false,\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n")
          (dotimes (i 12)
            (insert (format "{\"type\":\"user\",\"uuid\":\"o%d\",\"parentUuid\":\"ghost%d\",\"timestamp\":\"2026-01-01T00:01:%02d.000Z\",\"version\":\"2.1.120\",\"isSidechain\":false,\"message\":{\"role\":\"user\",\"content\":\"orphan %d\"}}\n" i i i i))))
        (unwind-protect
            (progn
              (revert-buffer)
              (test-wait "the list" (lambda () ccdag-sessions--done) 120)
              (dolist (c test-sessions-figures)
                (dolist (descending '(nil t))
                  (tabulated-list-sort (tabulated-list--column-number (car c))) ; a click on the header
                  (unless (equal tabulated-list-sort-key (cons (car c) descending)) (error "sort key %S" tabulated-list-sort-key))
                  (test-sessions-in-order (car c) (cdr c) descending))))
          (set-file-times erk)
          (delete-file orphans)
          (setq tabulated-list-sort-key nil)
          (tabulated-list-init-header)
          (ccdag-sessions--render)))))
  (test-step "M-x ccdag-sessions filters by what the records hold (the server's query), not titles alone; q closes"
    (let* ((log (current-buffer))
           (buf (ccdag-sessions)))
      (with-current-buffer buf
        (test-wait "the list" (lambda () ccdag-sessions--done) 120)
        ;; "vsaas-device" is in a thinking block of the session, not in its title
        (ccdag-sessions-filter "vsaas-device")
        (test-wait "the filtered list" (lambda () ccdag-sessions--done) 120)
        (unless (equal (mapcar #'car tabulated-list-entries) (list (ccdag--path-to-uri test-main)))
          (error "sessions holding \"vsaas-device\": %S" (mapcar #'car tabulated-list-entries)))
        (unless (string-match-p "filter: \"vsaas-device\"" (format "%s" mode-line-process)) (error "mode line %S" mode-line-process))
        (ccdag-sessions-filter "erk:plan-implement nothing-holds-this-word")
        (test-wait "the list for two words" (lambda () ccdag-sessions--done) 120)
        (when tabulated-list-entries (error "sessions holding both words: %S" (mapcar #'car tabulated-list-entries))))
      (pop-to-buffer buf)
      (execute-kbd-macro (kbd "q"))
      (when (eq (window-buffer (selected-window)) buf) (error "q did not close the list"))
      (switch-to-buffer log)))
  (test-step "M-x ccdag-sessions without a server (`ccdag sessions --format json' runs in the config folder): RET opens the session, whatever buffer is current when the list comes in"
    (let ((log (current-buffer))
          (cfg (file-name-as-directory (expand-file-name "../.." (file-name-directory test-main))))
          buf)
      (when (get-buffer "*ccdag-sessions*") (kill-buffer "*ccdag-sessions*"))
      (with-temp-buffer
        (setq default-directory cfg) ; no server here: the CLI runs, naming paths relative to cfg
        (setq buf (ccdag-sessions)))
      (when (buffer-local-value 'ccdag-sessions--server buf) (error "the list asked a server"))
      ;; meanwhile the person works in a buffer of another folder
      (with-temp-buffer
        (setq default-directory "/")
        ;; eglot watches the logs' folders, and batch Emacs never reads the file notifications
        ;; the steps above caused: while they are pending it runs no process sentinel (the list's
        ;; end).  Read them, as the command loop does.
        (test-wait "the list from `ccdag sessions'"
                   (lambda () (read-event nil nil 0.001) (buffer-local-value 'ccdag-sessions--done buf)) 120))
      (with-current-buffer buf
        (when ccdag-sessions--error (error "the list failed: %s" ccdag-sessions--error))
        (goto-char (point-min))
        (while (and (not (string-suffix-p (file-name-nondirectory test-main) (or (tabulated-list-get-id) ""))) (not (eobp)))
          (forward-line 1))
        (when (eobp) (error "no row of %s in %d" test-main (length tabulated-list-entries)))
        (ccdag-sessions-open)
        (unless (and buffer-file-name (equal (file-truename buffer-file-name) (file-truename test-main)))
          (error "RET opened %s (exists: %s)" buffer-file-name (and buffer-file-name (file-exists-p buffer-file-name)))))
      (kill-buffer buf)
      (switch-to-buffer log)))
  (test-step "M-x ccdag-sessions: the whole answer after the streamed rows prints only the rows not shown yet or changed (none when every row was: 1 464 rows printed again held Emacs 0.1 s at the end of a list); the buffer reads as a whole print, point stays on its session"
    (let* ((row (lambda (i &optional title)
                  (list :uri (format "file:///p/s%04d.jsonl" i) :id (format "s%04d" i)
                        :end (format "2026-02-%02dT%02d:%02d:00.000Z" (1+ (% i 28)) (% i 24) (% i 60))
                        :title (or title (format "session %d" i)) :project "~/p"
                        :tokens (list :output i :input 1) :findings (list :warning (% i 3)))))
           (rows (lambda (from to) (vconcat (mapcar row (number-sequence from (1- to))))))
           (buf (generate-new-buffer "*ccdag-sessions-print*"))
           (printed 0))
      (unwind-protect
          (with-current-buffer buf
            (ccdag-sessions-mode)
            (setq-local tabulated-list-printer (lambda (&rest a) (cl-incf printed) (apply #'tabulated-list-print-entry a)))
            (dolist (c '((300 300 nil 0) (250 300 10 51))) ; shown, sent, a row that changed, lines printed
              (let ((token (format "test-print-%d" (car c))) (whole (make-temp-name "")))
                (setq ccdag-sessions--token token ccdag-sessions--done nil
                      ccdag-sessions--rows (make-hash-table :test #'equal) ccdag-sessions--times (list (float-time) nil nil))
                (puthash token buf ccdag-sessions--buffers)
                (ccdag-sessions--batch token (list :sessions (funcall rows 0 200))) ; the first: printed at once
                (ccdag-sessions--batch token (list :sessions (funcall rows 200 (nth 0 c))))
                (ccdag-sessions--render) ; the timer's print
                (ccdag-sessions--batch token (list :sessions (funcall rows (nth 0 c) (nth 1 c)))) ; not printed yet
                (goto-char (point-min))
                (forward-line 100)
                (let ((id (tabulated-list-get-id))
                      (answer (funcall rows 0 (nth 1 c))))
                  (when (nth 2 c)
                    (aset answer (nth 2 c) (funcall row (nth 2 c) "a new title")))
                  (setq printed 0)
                  (ccdag-sessions--finish buf token answer nil)
                  (unless (= printed (nth 3 c))
                    (error "the answer printed %d rows, want %d (%d shown, %d sent)" printed (nth 3 c) (nth 0 c) (nth 1 c)))
                  (unless (equal (tabulated-list-get-id) id) (error "point moved from %s to %s" id (tabulated-list-get-id)))
                  (setq whole (buffer-string))
                  (tabulated-list-print t)
                  (unless (equal whole (buffer-string)) (error "the list printed in place differs from a whole print"))
                  (unless (= (count-lines (point-min) (point-max)) (nth 1 c)) (error "%d lines" (count-lines (point-min) (point-max))))
                  (when (and (nth 2 c) (not (string-match-p "a new title" whole))) (error "the changed row is not shown"))))))
        (kill-buffer buf))))
  (test-step "quick fix: eglot-code-actions re-parents an appended orphan in the buffer (nothing on disk)"
    (let ((disk (with-temp-buffer (insert-file-contents test-main) (buffer-string)))
          (orphan-at (lambda (line)
                       (cl-some (lambda (d) (and (string-match-p "\\[orphan\\]" (flymake-diagnostic-text d))
                                                 (or (null line) (= line (line-number-at-pos (flymake-diagnostic-beg d))))))
                                (flymake-diagnostics))))
          line)
      (goto-char (point-max))
      (unless (bolp) (insert "\n"))
      (setq line (line-number-at-pos))
      (insert "{\"parentUuid\":\"no-such-parent-0002\",\"isSidechain\":false,\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"fix me\"},\"uuid\":\"appended-0002\",\"timestamp\":\"2026-02-01T00:00:00.000Z\",\"sessionId\":\"87bcc603-30fb-432c-beb2-9c774a335172\"}\n")
      (eglot--signal-textDocument/didChange)
      (test-wait "an orphan diagnostic on the appended line" (lambda () (funcall orphan-at line)))
      (goto-char (point-min))
      (forward-line (1- line))
      (eglot-code-actions (line-beginning-position) (line-end-position) "quickfix" t)
      (let ((text (buffer-substring-no-properties (line-beginning-position) (line-end-position))))
        (when (string-match-p "no-such-parent-0002" text) (error "the line was not fixed: %s" text))
        (unless (string-match "\"parentUuid\":\"\\([^\"]+\\)\"" text) (error "no parentUuid: %s" text))
        (unless (test-line-of (format "\"uuid\":\"%s\"" (match-string 1 text)))
          (error "new parent %s is no record of the buffer" (match-string 1 text))))
      (eglot--signal-textDocument/didChange)
      (test-wait "the orphan to go" (lambda () (not (funcall orphan-at nil))))
      (unless (equal disk (with-temp-buffer (insert-file-contents test-main) (buffer-string)))
        (error "the log on disk changed"))
      (delete-region (line-beginning-position) (point-max))
      (set-buffer-modified-p nil)
      (eglot--signal-textDocument/didChange)))
  (test-step "a session log growing on disk is followed (auto-revert-tail-mode): buffer and diagnostics update"
    (unless auto-revert-tail-mode (error "auto-revert-tail-mode is off"))
    (let ((n (count-lines (point-min) (point-max))))
      (with-temp-buffer
        (insert "{\"parentUuid\":\"no-such-parent-0003\",\"isSidechain\":false,\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"live\"},\"uuid\":\"appended-0003\",\"timestamp\":\"2026-02-01T00:00:00.000Z\",\"sessionId\":\"87bcc603-30fb-432c-beb2-9c774a335172\"}\n")
        (append-to-file (point-min) (point-max) test-main))
      (test-wait "the appended line in the buffer" (lambda () (> (count-lines (point-min) (point-max)) n)))
      ;; eglot sends the change from an idle timer, which batch Emacs never runs: send it now
      ;; (what it recorded from the tail insertion's change hooks).
      (eglot--signal-textDocument/didChange)
      (test-wait "its orphan diagnostic"
                 (lambda () (cl-some (lambda (d) (string-match-p "\\[orphan\\]" (flymake-diagnostic-text d))) (flymake-diagnostics))))
      (when (buffer-modified-p) (error "the buffer is modified"))
      (when (string-search "Reverting buffer" (with-current-buffer "*Messages*" (buffer-string)))
        (error "following says \"Reverting buffer\""))))
  (test-step "a log's diagnostics are placed line after line (eglot 1.9 finds each from the buffer's start): the same positions, and the time side by side"
    (let* ((ranges (mapcar (lambda (d) (plist-get (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d))) :range))
                           (flymake-diagnostics)))
           (from-start (let ((ccdag--line-found nil)) (mapcar #'eglot--range-region ranges)))
           (relative (let ((ccdag--line-found (list nil))) (mapcar #'eglot--range-region ranges))))
      (unless (>= (length ranges) 3) (error "%d diagnostics" (length ranges)))
      (unless (equal from-start relative) (error "positions differ:\n%S\n%S" from-start relative))
      (let ((a (car (benchmark-run 5 (let ((ccdag--line-found nil)) (mapc #'eglot--range-region ranges)))))
            (b (car (benchmark-run 5 (let ((ccdag--line-found (list nil))) (mapc #'eglot--range-region ranges))))))
        (test-out "       %d diagnostics of a %.1f MB log placed in %.1f ms each from the start, %.1f ms line after line (%.1fx; load %s)"
                  (length ranges) (/ (buffer-size) 1048576.0) (* 200 a) (* 200 b) (/ a (max b 1e-9))
                  (car (split-string (with-temp-buffer (insert-file-contents "/proc/loadavg") (buffer-string))))))))
  (test-step "M-x ccdag-transcript: the session as text, not Markdown source (line for line); RET jumps to the log line"
    (let* ((log (current-buffer))
           (md (plist-get (jsonrpc-request (eglot-current-server) :ccdag/transcript
                                           (list :textDocument (eglot--TextDocumentIdentifier) :allBranches :json-false))
                          :markdown))
           (buf (ccdag-transcript)))
      ;; the transcript's window is selected: RET there jumps (in the log it would edit it)
      (unless (eq (window-buffer (selected-window)) buf) (error "the transcript window is not selected"))
      (with-current-buffer buf
        ;; the server's Markdown escapes the messages' punctuation (There\'s, setup\-impl), links its
        ;; lines ([L4](<file:///…#L4>)) and folds thinking in <details>: none of it is shown
        (dolist (src '("](<file:" "<details><summary>thinking" "\\'" "\\-" "**Turns:**"))
          (unless (string-search src md) (error "the server's Markdown has no %S: the check below means nothing" src)))
        (let ((text (buffer-string)))
          (dolist (shown '("](<file:" "<details>" "</summary>" "\\'" "\\-" "**Turns:**"))
            (when (string-search shown text) (error "the transcript shows %S: %S" shown
                                                    (let ((i (string-search shown text))) (substring text (max 0 (- i 60)) (min (length text) (+ i 60)))))))
          (unless (string-match-p "^▸ thinking (L[0-9]+)$" text) (error "no \"▸ thinking (Ln)\" line"))
          (unless (string-match-p "^- Turns: [0-9]+ · Records: [0-9]+$" text) (error "no \"- Turns: N · Records: N\" line"))
          (unless (= (length (split-string text "\n")) (length (split-string md "\n")))
            (error "%d lines, the server's Markdown %d: the links to the log lines would be off"
                   (length (split-string text "\n")) (length (split-string md "\n")))))
        (goto-char (point-min))
        (unless (re-search-forward "^## Turn 2 .*\\[L\\([0-9]+\\)\\]" nil t)
          (error "no \"## Turn 2\" heading in %S" (buffer-substring (point-min) (min (point-max) 400))))
        (let ((want (string-to-number (match-string 1))))
          (unless buffer-read-only (error "the transcript buffer is writable"))
          (beginning-of-line)
          (ccdag-transcript-jump)
          (unless (and (eq (current-buffer) log) (= (line-number-at-pos) want))
            (error "RET went to %s line %d, want the log line %d" (current-buffer) (line-number-at-pos) want))
          (test-out "       Turn 2 -> line %d" want)))
      (set-buffer log)))
  (test-step (format "inlay hints: eglot %s %s; the server answers textDocument/inlayHint"
                     (if (fboundp 'eglot-inlay-hints-mode) "shows them" "has none before 1.15:")
                     (or (ignore-errors (package-desc-version (cadr (assq 'eglot package-alist)))) ""))
    (let* ((res (jsonrpc-request (eglot-current-server) :textDocument/inlayHint
                                 (list :textDocument (eglot--TextDocumentIdentifier)
                                       :range (list :start (list :line 0 :character 0) :end (list :line 30 :character 0))))))
      (unless (and (> (length res) 5) (stringp (plist-get (aref res 0) :label)))
        (error "inlay hints %S" res))
      (test-out "       %d hints, e.g. %S" (length res) (plist-get (aref res 2) :label))))
  (test-step "folds from the server's ranges (overlays): a turn, its steps, a sub-agent's steps; the compaction stays visible"
    (ccdag-folds-refresh)
    (let ((n (length ccdag--folds)))
      ;; by hand, as in the Neovim test: the first turn 3-518, the Agent call's step 51-313, the
      ;; sub-agent's first step 54-55, the compaction boundary at 625
      (dolist (want '((2 . 517) (50 . 312) (53 . 54)))
        (unless (member want ccdag--folds) (error "no fold %S in %d" want n)))
      (goto-char (point-min)) (forward-line 2)
      (ccdag-fold-toggle)
      (let ((o (car (ccdag--fold-overlays (line-beginning-position) (1+ (line-end-position))))))
        (unless (and o (= (line-number-at-pos (overlay-start o)) 3) (= (line-number-at-pos (overlay-end o)) 518))
          (error "the turn's fold: %S" (and o (list (line-number-at-pos (overlay-start o)) (line-number-at-pos (overlay-end o)))))))
      ;; folded, the turn is one line from the left margin saying what it holds (a marker at the
      ;; end of the first line would be past the window's edge)
      (let* ((o (car (ccdag--fold-overlays (line-beginning-position) (1+ (line-end-position)))))
             (shown (and o (overlay-get o 'display))))
        (unless (and o (= (overlay-start o) (line-beginning-position))) (error "the fold does not start at the line's start"))
        (unless (and (stringp shown) (string-prefix-p "▸ turn 1 · 我發現claude code skill" shown)
                     (string-match-p "32 tool calls" shown) (string-suffix-p "(516 lines)" shown))
          (error "the folded turn shows %S" shown))
        (test-out "       %s" shown))
      (ccdag-fold-toggle)
      (when (ccdag--fold-overlays (point-min) (point-max)) (error "the fold stayed"))
      (unless (= (test-line-of "\"subtype\":\"compact_boundary\"") 625) (error "the boundary moved"))
      (ccdag-fold-all)
      (let ((b (save-excursion (goto-char (point-min)) (forward-line 624) (point))))
        (when (cl-some (lambda (o) (and (< (overlay-start o) b) (> (overlay-end o) b)))
                       (ccdag--fold-overlays (point-min) (point-max)))
          (error "the compaction boundary is inside a fold")))
      (test-out "       %d folds, %d folded by ccdag-fold-all; compaction at 625 visible" n
                (length (ccdag--fold-overlays (point-min) (point-max))))
      (ccdag-unfold-all)))
  (test-step "M-. where nothing is defined says why (the server's window/showMessage, shown by eglot)"
    (let* (said
           (note (lambda (_server method &rest params)
                   (when (eq method 'window/showMessage) (push (plist-get params :message) said)))))
      (advice-add 'eglot-handle-notification :before note)
      (unwind-protect
          (progn
            (goto-char (point-min)) (forward-line 2) ; the first prompt's {
            (ignore-errors (test-definition))
            (test-wait "the reason" (lambda () said) 20))
        (advice-remove 'eglot-handle-notification note))
      (unless (equal (car said) "ccdag: no definition: no parentUuid, tool_use_id or agentId at the cursor")
        (error "said %S" said))
      (test-out "       %s" (car said))
      ;; and M-. as typed ends with that reason, not xref's "No definitions found for: …"
      (let ((last (condition-case e (progn (call-interactively #'xref-find-definitions) "no error")
                    (user-error (error-message-string e)))))
        (unless (equal last (car said)) (error "M-. ends with %S, want the server's reason" last))
        (unless (= (line-number-at-pos) 3) (error "M-. moved to line %d" (line-number-at-pos))))))
  (test-step "a 4 MB log: from find-file to its diagnostics in Emacs, and where the time goes"
    (let* ((src (getenv "CCDAG_TEST_BIG"))
           (big (expand-file-name (concat "big/" (file-name-nondirectory src))
                                  (file-name-directory (directory-file-name (file-name-directory test-main)))))
           (log (current-buffer))
           received t-opened buf)
      (make-directory (file-name-directory big) t)
      (copy-file src big t)
      (let ((size (file-attribute-size (file-attributes big)))
            (note (lambda (_server method &rest params)
                    (when (and (eq method 'textDocument/publishDiagnostics) (not received)
                               (string-suffix-p (file-name-nondirectory big) (plist-get params :uri))
                               (> (length (plist-get params :diagnostics)) 0))
                      (setq received (float-time)))))
            (t0 (float-time)))
        (unless (>= size (* 4 1024 1024)) (error "the log has %d bytes" size))
        (advice-add 'eglot-handle-notification :before note)
        (unwind-protect
            (progn
              (setq buf (find-file big)) ; shown, as a person opens it (flymake waits for a window)
              (setq t-opened (float-time))
              (with-current-buffer buf
                (unless (eglot-managed-p) (error "eglot does not manage the log"))
                ;; what the command loop does after the find-file command (batch has none):
                ;; flymake starts its deferred check there
                (run-hooks 'post-command-hook)
                (run-hooks 'window-configuration-change-hook)
                (condition-case e
                    (test-wait "diagnostics on the 4 MB log" (lambda () (flymake-diagnostics)))
                  (error (error "%s (publishDiagnostics %s; flymake backends running %S, reporting %S)"
                                (error-message-string e) (if received "received" "never received")
                                (flymake-running-backends) (flymake-reporting-backends))))))
          (advice-remove 'eglot-handle-notification note))
        (let* ((t-shown (float-time))
               (total (* 1000 (- t-shown t0))))
          (test-out "       %.1f MB, %d lines: open to diagnostics %.0f ms = find-file (read, mode, didOpen) %.0f ms + server and wire %.0f ms + shown (flymake) %.0f ms; %d diagnostics (load %s)"
                    (/ size 1048576.0) (with-current-buffer buf (count-lines (point-min) (point-max))) total
                    (* 1000 (- t-opened t0)) (* 1000 (- (or received t-shown) t-opened)) (* 1000 (- t-shown (or received t-shown)))
                    (length (with-current-buffer buf (flymake-diagnostics)))
                    (car (split-string (with-temp-buffer (insert-file-contents "/proc/loadavg") (buffer-string)))))
          ;; docs/spec.md §10: <= 1.5 s; a loaded CI machine gets a margin, the figure above is the measure
          (when (> total (* 1500 (string-to-number (or (getenv "CCDAG_TEST_SLOWDOWN") "3"))))
            (error "%.0f ms from open to diagnostics" total))))
      (kill-buffer buf)
      (switch-to-buffer log)))
  (test-step "a session of 1 000+ nodes: M-x ccdag-graph-text draws each node, and how long it takes"
    (let* ((src (getenv "CCDAG_TEST_THOUSAND"))
           (gen (expand-file-name (concat "gen/" (file-name-nondirectory src))
                                  (file-name-directory (directory-file-name (file-name-directory test-main)))))
           (log (current-buffer))
           (want (with-temp-buffer
                   (unless (eq 0 (call-process "ccdag" nil t nil "graph" "--format" "json" src))
                     (error "ccdag graph --format json failed: %s" (buffer-string)))
                   (goto-char (point-min))
                   (length (plist-get (json-parse-buffer :object-type 'plist :array-type 'list) :nodes))))
           buf gbuf t0 ms drawn)
      (when (< want 1000) (error "the generated session has %d nodes" want))
      (make-directory (file-name-directory gen) t)
      (copy-file src gen t)
      (setq buf (find-file gen))
      (with-current-buffer buf
        (unless (eglot-managed-p) (error "eglot does not manage the generated log"))
        (setq t0 (float-time))
        (setq gbuf (ccdag-graph-text))
        (setq ms (* 1000 (- (float-time) t0))))
      (with-current-buffer gbuf
        (setq drawn (count-matches "^ *[0-9]+ .*\\[[UTAOSx]\\]" (point-min) (point-max))))
      (unless (= drawn want) (error "%d node lines in the graph buffer, want %d" drawn want))
      (test-out "       %d nodes drawn in %.0f ms (load %s)" drawn ms
                (car (split-string (with-temp-buffer (insert-file-contents "/proc/loadavg") (buffer-string)))))
      ;; docs/spec.md §10: a first picture of 1 000 nodes in <= 2 s; a loaded CI machine gets a margin
      (when (> ms (* 2000 (string-to-number (or (getenv "CCDAG_TEST_SLOWDOWN") "3"))))
        (error "%.0f ms to the graph" ms))
      (kill-buffer gbuf)
      (kill-buffer buf)
      (switch-to-buffer log)))
  ;; M-x ccdag-resume shows what `ccdag resume' prints, byte for byte, and the figures of `ccdag
  ;; resume --format json'; the setting ccdag-claude-version reaches the server (didChangeConfiguration).
  (test-resume-step (current-buffer) nil)
  (let ((log (current-buffer)))
    (setq ccdag-claude-version "2.1.30")
    (eglot-signal-didChangeConfiguration (eglot-current-server))
    (test-resume-step log "2.1.30")
    (setq ccdag-claude-version "")
    (eglot-signal-didChangeConfiguration (eglot-current-server))
    ;; A log with a call without result and a result without call: both dropped.
    (let ((fixture (expand-file-name "resume-pairing.jsonl" (file-name-directory test-main))))
      (copy-file (expand-file-name "internal/resume/testdata/pairing.jsonl" (getenv "CCDAG_ROOT")) fixture t)
      (find-file fixture)
      (test-wait "the server on the fixture" (lambda () (eglot-current-server)))
      (test-resume-step (current-buffer) nil 2)
      (test-step "M-x ccdag-resume follows its log: a record appended, the preview is asked again"
        (let* ((log (current-buffer))
               (buf (ccdag-resume))
               (before (with-current-buffer buf (buffer-string))))
          (with-current-buffer log
            (goto-char (point-max))
            (insert "{\"type\":\"user\",\"uuid\":\"u3\",\"parentUuid\":\"a2\",\"timestamp\":\"2026-01-01T00:00:04.000Z\",\"version\":\"2.1.53\",\"isSidechain\":false,\"message\":{\"role\":\"user\",\"content\":\"and now?\"}}\n")
            (save-buffer)
            ;; eglot and the preview both wait for an idle moment, which batch Emacs never has.
            (eglot--signal-textDocument/didChange)
            (unless (timerp ccdag--side-timer) (error "no refresh of the preview pending after the edit"))
            (timer-event-handler ccdag--side-timer))
          (let ((want (test-cli "resume" fixture))
                (got (with-current-buffer buf (buffer-string))))
            (when (string= got before) (error "the preview did not change"))
            (unless (string= got want) (error "the preview differs from `ccdag resume' after the edit:\n%s\n---\n%s" got want))
            (unless (string-match-p "^5 records sent of 5" got) (error "not 5 records: %s" got)))
          (kill-buffer buf)
          (switch-to-buffer log)))
      (kill-buffer (current-buffer)))
    (set-buffer log)
    (switch-to-buffer log))
  (test-step "shutdown, exit: the server process ends with 0"
    (let* ((server (eglot-current-server))
           (proc (jsonrpc--process server)))
      (setf (eglot--shutdown-requested server) t)
      (jsonrpc-request server :shutdown nil)
      (jsonrpc-notify server :exit nil)
      (test-wait "the process to end" (lambda () (not (process-live-p proc))) 10)
      (unless (and (eq (process-status proc) 'exit) (= (process-exit-status proc) 0))
        (error "process %s, exit status %s" (process-status proc) (process-exit-status proc))))))

(condition-case err
    (test-run)
  (error (cl-incf test-failed) (test-out "FAIL - test script: %s" (error-message-string err))))
(test-out "emacs: %d passed, %d failed" test-passed test-failed)
(kill-emacs (if (> test-failed 0) 1 0))
