;;; ccdag-sessions.el --- The session browser of ccdag  -*- lexical-binding: t; -*-

;;; Commentary:

;; M-x ccdag-sessions (docs/spec.md §10, §14): every Claude Code session of the workspace's
;; .claude/projects folders, newest first, in a `tabulated-list-mode' buffer: when (local time),
;; when Claude Code deletes it ("at next start" once due), the folder it ran in, tokens (a lower
;; bound marked ≥), cost, resume state, findings and title; sessions where nothing was said are
;; dimmed.  The command returns at once and the list fills as the rows arrive: the server's
;; `ccdag/sessions' streams them ($/progress on a partialResultToken, the history cache's first)
;; and answers with the whole list.  Without a server, `ccdag sessions --format json' runs as a
;; process.  Emacs answers keys meanwhile.
;;
;; RET open the session's main log   / filter: sessions a record of which holds every word (the
;; server's `query', as `ccdag search'; not titles alone)   g ask again   q close

;;; Code:

(require 'tabulated-list)
(require 'json)
(require 'eglot)
(require 'jsonrpc)
(require 'seq)
(require 'parse-time)
(declare-function ccdag--uri-to-path "ccdag" (uri))

(defvar ccdag-program)

(defvar-local ccdag-sessions--server nil
  "The eglot server the list asks, nil when it runs `ccdag sessions'.")
(defvar-local ccdag-sessions--query "" "The filter: words a record of each session holds.")
(defvar-local ccdag-sessions--rows nil "The rows so far: a hash table from uri to row (a plist).")
(defvar-local ccdag-sessions--token nil "The partialResultToken of the request under way.")
(defvar-local ccdag-sessions--cancel nil "A function that stops the request under way, or nil.")
(defvar-local ccdag-sessions--done nil "Non-nil once the whole list is in.")
(defvar-local ccdag-sessions--error nil "Why the list failed, or nil.")
(defvar-local ccdag-sessions--batches 0 "How many batches of rows arrived before the answer.")
(defvar-local ccdag-sessions--times nil "(START FIRST-ROWS DONE) as `float-time' values.")

(defvar ccdag-sessions--buffers (make-hash-table :test #'equal)
  "Browser buffers by the partialResultToken they wait for.")
(defvar ccdag-sessions--tokens 0)

(defface ccdag-sessions-empty '((t :inherit shadow)) "A session where nothing was said." :group 'ccdag)
(defface ccdag-sessions-overdue '((t :inherit warning)) "A session Claude Code deletes at its next start." :group 'ccdag)

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

;; A cost as the server writes it (internal/prices.Nano.String), as the other editors do.
(defun ccdag-sessions--fixed (x d)
  "X with D decimals as Go writes it: the nearest, a tie to the even digit.
X is halfway between two (0.0625 for 3 decimals) only when X * 2^(D+1) is an odd
whole number; `format' rounds a tie as the C library does, Go to even (\"0.062\")."
  (let ((h (* x (expt 2 (1+ d)))))
    (when (and (= h (ffloor h)) (= (mod h 2) 1))
      (let ((k (floor (* x (expt 10 d))))) ; X * 10^D is K + 0.5, exactly
        (setq x (/ (+ k (% k 2)) (expt 10.0 d)))))
    (format (format "%%.%df" d) x)))

(defun ccdag-sessions--dollars (usd)
  "USD dollars as the server writes them (internal/prices.Nano.String).
$0, < $0.0001, $0.0042, $0.036, $0.412, $0.42, $4.21, $1,234."
  (let ((n (round (* (or usd 0) 1e9)))) ; nano-dollars, as the server counts
    (cond
     ((< n 0) (concat "-" (ccdag-sessions--dollars (- usd))))
     ((= n 0) "$0")
     ((< n 100000) "< $0.0001")
     ;; under a cent: four decimals, the zeros after the last digit dropped
     ((< n 10000000)
      (concat "$" (string-remove-suffix "." (replace-regexp-in-string "0+\\'" "" (ccdag-sessions--fixed (/ n 1e9) 4)))))
     ;; under a dollar: three decimals, the third dropped when 0
     ((< n 995000000)
      (let ((s (ccdag-sessions--fixed (/ n 1e9) 3)))
        (concat "$" (substring s 0 4) (replace-regexp-in-string "0+\\'" "" (substring s 4)))))
     ;; cents, rounded half up
     ((< n 999995000000)
      (let ((cents (/ (+ n 5000000) 10000000)))
        (format "$%d.%02d" (/ cents 100) (% cents 100))))
     ;; whole dollars, rounded half up, in thousands
     (t (let* ((s (number-to-string (/ (+ n 500000000) 1000000000)))
               (i (- (length s) 3)))
          (while (> i 0)
            (setq s (concat (substring s 0 i) "," (substring s i))
                  i (- i 3)))
          (concat "$" s))))))

(defun ccdag-sessions--local (ts)
  "The ISO timestamp TS (UTC, as logged) in local time: \"2026-01-31 20:22\".
\"-\" when TS is none.  Sorted by the time itself."
  (let ((time (and (stringp ts) (ignore-errors (parse-iso8601-time-string ts)))))
    (if time
        (ccdag-sessions--keyed (format-time-string "%Y-%m-%d %H:%M" time) (list (float-time time)))
      "-")))

;; Columns of figures sort by the figures, not by their text ("≥ $9.94" after "$74.66", "8" after
;; "26"): such a cell carries its sort key, a list of numbers compared in order (none: first).
(defun ccdag-sessions--keyed (text key)
  "TEXT to show in a cell, sorted by KEY (a list of numbers)."
  (propertize text 'ccdag-sessions-key key))

(defun ccdag-sessions--key< (a b)
  "Whether sort key A comes before B: numbers compared in order, nil first."
  (while (and a b (= (car a) (car b)))
    (setq a (cdr a) b (cdr b)))
  (and b (or (null a) (< (car a) (car b)))))

(defun ccdag-sessions--by-key (col)
  "The sort predicate of column COL: its cells' keys."
  (lambda (a b)
    (ccdag-sessions--key< (get-text-property 0 'ccdag-sessions-key (aref (cadr a) col))
                          (get-text-property 0 'ccdag-sessions-key (aref (cadr b) col)))))

(defun ccdag-sessions--by-whole (col)
  "The sort predicate of column COL, whose cells are cut to fit: the whole text.
Sorting the cells' text would put every cut one (\"…k/repos/erk\") last."
  (let ((whole (lambda (e) (let ((c (aref (cadr e) col))) (or (get-text-property 0 'ccdag-sessions-whole c) c)))))
    (lambda (a b) (string< (funcall whole a) (funcall whole b)))))

(defun ccdag-sessions--cut-left (p)
  "The folder P, at most 34 columns, cut from the left (its end names it)."
  (let ((p (or p "?")))
    (if (<= (string-width p) 34)
        p
      (let ((i (length p)))
        (while (and (> i 0) (<= (string-width (substring p (1- i))) 33))
          (setq i (1- i)))
        (concat "…" (substring p i))))))

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
         (overdue (eq (plist-get s :overdue) t))
         (empty (eq (plist-get s :empty) t))
         (cells
          (list (ccdag-sessions--local (plist-get s :end))
                ;; the day Claude Code deletes it (cleanupPeriodDays, docs/spec.md §11): soonest
                ;; first, a session its sweep does not reach ("-") last
                (let* ((d (plist-get s :deletes))
                       (d (and (stringp d) (string-match-p "\\`[0-9]+-[0-9]+-[0-9]+\\'" d) d)))
                  (ccdag-sessions--keyed
                   (cond (overdue (propertize "at next start" 'face 'ccdag-sessions-overdue))
                         (d)
                         (t "-"))
                   (if d (mapcar #'string-to-number (split-string d "-")) (list (if overdue 0 1.0e+INF)))))
                (let ((p (or (plist-get s :project) (plist-get s :projectFolder) "?")))
                  (propertize (ccdag-sessions--cut-left p) 'ccdag-sessions-whole p))
                (ccdag-sessions--keyed (format "%s/%s" out (ccdag-sessions--short in))
                                       (list (or (plist-get tok :output) 0) in))
                (cond ((> (or (plist-get cost :priced) 0) 0)
                       (ccdag-sessions--keyed
                        (concat (if (or (eq (plist-get cost :lowerBound) t) (> (or (plist-get cost :unpriced) 0) 0)) "≥ " "")
                                (ccdag-sessions--dollars (plist-get cost :usd)))
                        (list (or (plist-get cost :usd) 0))))
                      ((> (or (plist-get cost :unpriced) 0) 0) "unpriced")
                      (t "-"))
                ;; nothing to resume, then whole, then by what is lost
                (cond ((null res) "-")
                      ((eq (plist-get res :complete) t) (ccdag-sessions--keyed "ok" '(0)))
                      ((plist-get res :brokenAt)
                       (ccdag-sessions--keyed (format "loses %s" (plist-get res :lost))
                                              (list 1 (let ((n (plist-get res :lost))) (if (numberp n) n 0)))))
                      (t (ccdag-sessions--keyed "ok" '(0))))
                (ccdag-sessions--keyed (number-to-string nf) (list nf))
                (let ((title (plist-get s :title))) (if (and title (not (string-empty-p title))) title (plist-get s :id))))))
    (list (plist-get s :uri)
          (vconcat (if empty
                       (mapcar (lambda (c) (propertize c 'face 'ccdag-sessions-empty)) cells)
                     cells)))))

(defun ccdag-sessions--sorted ()
  "The rows so far, newest first."
  (let (rows)
    (when ccdag-sessions--rows
      (maphash (lambda (_ r) (push r rows)) ccdag-sessions--rows))
    (sort rows (lambda (a b)
                 (let ((ea (or (plist-get a :end) "")) (eb (or (plist-get b :end) "")))
                   (if (string= ea eb) (string< (or (plist-get a :uri) "") (or (plist-get b :uri) ""))
                     (string> ea eb)))))))

(defvar-local ccdag-sessions--entries nil
  "The entries made so far: a hash table from uri to (ROW . ENTRY).")

(defvar-local ccdag-sessions--render-timer nil "A pending print of the rows that streamed in.")

(defvar-local ccdag-sessions--printed nil
  "What `ccdag-sessions--render' printed last: (TICK . ENTRIES).
ENTRIES in their order, TICK the buffer's `buffer-chars-modified-tick'
after; nil when the buffer shows anything else.")

(defun ccdag-sessions--render-soon ()
  "Print the rows that streamed in.
The first at once, later ones at most every 0.3 s.  Printing 400 rows
took 0.1 to 0.4 s (most of it collecting garbage), so the batches that
arrive meanwhile are printed together."
  (cond ((null tabulated-list-entries) (ccdag-sessions--render))
        ((not ccdag-sessions--render-timer)
         (let ((buf (current-buffer)))
           (setq ccdag-sessions--render-timer
                 (run-with-timer 0.3 nil (lambda ()
                                           (when (buffer-live-p buf)
                                             (with-current-buffer buf
                                               (setq ccdag-sessions--render-timer nil)
                                               (unless ccdag-sessions--done (ccdag-sessions--render)))))))))))

(defun ccdag-sessions--print-changes (old new)
  "Make the buffer, which shows the entries OLD, show NEW in place.
Both are in the same order (newest first) and share the entries of the
rows that did not change (`eq'): only the lines of entries that came or
went are inserted or deleted, and point stays on its session.  Nil when
the orders disagree, or no entry is in both (nothing is changed then)."
  (let ((kept (make-hash-table :test #'eq :size (length new)))
        (shown (make-hash-table :test #'eq :size (length old)))
        (id (tabulated-list-get-id))
        (col (current-column))
        (inhibit-read-only t)
        at)
    (dolist (e new) (puthash e t kept))
    (dolist (e old) (puthash e t shown))
    ;; the entries both show are in the same order, or this is no mere insertion and deletion;
    ;; and some are (none: the buffer is written whole, faster than line by line)
    (when (let ((a (seq-filter (lambda (e) (gethash e kept)) old))
                (b (seq-filter (lambda (e) (gethash e shown)) new)))
            (and a
                 (progn (while (and a b (eq (car a) (car b)))
                          (setq a (cdr a) b (cdr b)))
                        (and (null a) (null b)))))
      (save-excursion
        (goto-char (point-min))
        (while (or old new)
          (cond ((and old (not (gethash (car old) kept))) ; gone: its line deleted
                 (delete-region (point) (progn (forward-line 1) (point)))
                 (setq old (cdr old)))
                ((and new (not (gethash (car new) shown))) ; new: its line inserted here
                 (when (equal (car (car new)) id) (setq at (point-marker)))
                 (apply tabulated-list-printer (car new))
                 (setq new (cdr new)))
                (t ; shown and kept: its line stays
                 (when (equal (car (car new)) id) (setq at (point-marker)))
                 (forward-line 1)
                 (setq old (cdr old) new (cdr new))))))
      (set-buffer-modified-p nil)
      (when at
        (goto-char at)
        (move-to-column col)
        (set-marker at nil))
      t)))

(defun ccdag-sessions--render ()
  "Show the rows so far, keeping point on its session.
Each row's entry is made once; garbage collection is put off while the
table is printed.  Only the lines of rows that came, went or changed since
the last print are written: the whole answer repeats the rows streamed
before it, and printing 1 464 rows again took 0.1 s at the end of a list."
  (unless ccdag-sessions--entries
    (setq ccdag-sessions--entries (make-hash-table :test #'equal)))
  (setq tabulated-list-entries
        (mapcar (lambda (s) (let ((e (gethash (plist-get s :uri) ccdag-sessions--entries)))
                              (if (and e (equal (car e) s)) (cdr e)
                                (cdr (puthash (plist-get s :uri) (cons s (ccdag-sessions--entry s)) ccdag-sessions--entries)))))
                (ccdag-sessions--sorted)))
  (setq mode-line-process
        (concat " "
                (cond (ccdag-sessions--error (format "error: %s" ccdag-sessions--error))
                      (ccdag-sessions--done (let ((n (length tabulated-list-entries))) (format "%d session%s" n (if (= n 1) "" "s"))))
                      (t (format "reading… %d so far" (length tabulated-list-entries))))
                (if (string-empty-p ccdag-sessions--query) "" (format " filter: \"%s\"" ccdag-sessions--query))))
  (let ((gc-cons-threshold (max gc-cons-threshold (* 64 1024 1024))))
    ;; Printed in place when the buffer still shows what the last print wrote in our order (a
    ;; column sorted by its header, or a revert's print, is another order: printed whole).
    (unless (and ccdag-sessions--printed
                 (null tabulated-list-sort-key)
                 tabulated-list-use-header-line
                 (= (car ccdag-sessions--printed) (buffer-chars-modified-tick))
                 (ccdag-sessions--print-changes (cdr ccdag-sessions--printed) tabulated-list-entries))
      (tabulated-list-print t)))
  (setq ccdag-sessions--printed (cons (buffer-chars-modified-tick) tabulated-list-entries))
  (force-mode-line-update))

(defun ccdag-sessions--add (rows)
  "Add ROWS (plists or a vector of them) to the list."
  (seq-doseq (s rows)
    (when (plist-get s :uri)
      (puthash (plist-get s :uri) s ccdag-sessions--rows))))

(defun ccdag-sessions--batch (token value)
  "Rows VALUE streamed on TOKEN: into the browser that waits for them."
  (let ((buf (gethash token ccdag-sessions--buffers)))
    (when (buffer-live-p buf)
      (with-current-buffer buf
        (when (and (equal token ccdag-sessions--token) (not ccdag-sessions--done))
          (setq ccdag-sessions--batches (1+ ccdag-sessions--batches))
          (unless (nth 1 ccdag-sessions--times)
            (setf (nth 1 ccdag-sessions--times) (float-time)))
          (ccdag-sessions--add (plist-get value :sessions))
          (ccdag-sessions--render-soon))))))

;; The rows of a partial result arrive as $/progress on our token; any other $/progress is eglot's.
(cl-defmethod eglot-handle-notification :around (_server (_method (eql $/progress)) &key token value &allow-other-keys)
  (if (and (stringp token) (gethash token ccdag-sessions--buffers) (plist-member value :sessions))
      (ccdag-sessions--batch token value)
    (cl-call-next-method)))

;; eglot logs every message in its events buffer (`eglot-events-buffer-size', 2 MB by default),
;; and Emacs 28's jsonrpc (1.0.14) writes each one pretty-printed (`pp-to-string').  A big
;; history's list is two messages of megabytes (the cached rows in one batch, then the answer):
;; printing them held Emacs at the end of every list (1 464 sessions, 1.6 MB each: a timer 0.5 to
;; 0.7 s late, 37 garbage collections; 0.25 s and 15 with the events buffer off).  Their rows are
;; logged as a count; the rest of each message, and every other message, as before.
(defvar ccdag-sessions--asked (make-hash-table :test #'eq :weakness 'key)
  "The ids of the ccdag/sessions requests under way, by connection.")

(defun ccdag-sessions--rows-counted (value)
  "VALUE, a ccdag/sessions answer or batch, its rows as their count (a copy)."
  (let ((rows (plist-get value :sessions)))
    (if (not (vectorp rows))
        value
      (plist-put (copy-sequence value) :sessions (format "%d rows, not logged" (length rows))))))

(defun ccdag-sessions--log-event (orig connection message &optional type &rest more)
  "Around `jsonrpc--log-event' (ORIG): log MESSAGE of CONNECTION, rows counted.
TYPE says who sent it (`client', `server'); MORE are further arguments."
  (when (and (consp message) (plist-member message :jsonrpc))
    (let ((id (plist-get message :id))
          (method (plist-get message :method)))
      (cond
       ((and id (eq type 'client) (equal method "ccdag/sessions")) ; our request
        (push id (gethash connection ccdag-sessions--asked)))
       ((and id (eq type 'server) (not method) (memq id (gethash connection ccdag-sessions--asked))) ; its answer
        (puthash connection (delq id (gethash connection ccdag-sessions--asked)) ccdag-sessions--asked)
        (when (plist-get message :result)
          (setq message (plist-put (copy-sequence message) :result
                                   (ccdag-sessions--rows-counted (plist-get message :result))))))
       ((and (eq type 'server) (equal method "$/progress") ; a batch of rows
             (let ((token (plist-get (plist-get message :params) :token)))
               (and (stringp token) (string-prefix-p "ccdag-sessions-" token))))
        (let ((params (plist-get message :params)))
          (setq message (plist-put (copy-sequence message) :params
                                   (plist-put (copy-sequence params) :value
                                              (ccdag-sessions--rows-counted (plist-get params :value))))))))))
  (apply orig connection message type more))

;; A later jsonrpc logs through `jsonrpc-event-hook', with other arguments, and with eglot's
;; default as the JSON text received: nothing pretty-printed to spare.
(unless (boundp 'jsonrpc-event-hook)
  (advice-add 'jsonrpc--log-event :around #'ccdag-sessions--log-event))

(defun ccdag-sessions--finish (buf token rows err)
  "The answer to the request on TOKEN for BUF: ROWS (the whole list), or ERR."
  (when (buffer-live-p buf)
    (with-current-buffer buf
      (when (equal token ccdag-sessions--token)
        (remhash token ccdag-sessions--buffers)
        (setq ccdag-sessions--done t ccdag-sessions--error err ccdag-sessions--cancel nil)
        (setf (nth 2 ccdag-sessions--times) (float-time))
        (when rows
          (setq ccdag-sessions--rows (make-hash-table :test #'equal))
          (ccdag-sessions--add rows))
        (ccdag-sessions--render)))))

(defun ccdag-sessions--ask ()
  "Ask for the rows again (with the filter), without waiting for them."
  (when ccdag-sessions--cancel (ignore-errors (funcall ccdag-sessions--cancel)))
  (when ccdag-sessions--token (remhash ccdag-sessions--token ccdag-sessions--buffers))
  (let* ((token (format "ccdag-sessions-%d" (cl-incf ccdag-sessions--tokens)))
         (buf (current-buffer))
         (server ccdag-sessions--server))
    (setq ccdag-sessions--token token ccdag-sessions--done nil ccdag-sessions--error nil
          ccdag-sessions--batches 0 ccdag-sessions--times (list (float-time) nil nil)
          ccdag-sessions--rows (make-hash-table :test #'equal))
    (puthash token buf ccdag-sessions--buffers)
    (if (and server (jsonrpc-running-p server))
        ;; jsonrpc 1.0.14 does not say a request's id: an answer to a request asked again since
        ;; is known by its token and dropped.
        (jsonrpc-async-request
         server :ccdag/sessions
         (append (list :partialResultToken token)
                 (unless (string-empty-p ccdag-sessions--query) (list :query ccdag-sessions--query)))
         :success-fn (lambda (res)
                       (ccdag-sessions--finish buf token (plist-get res :sessions) nil))
         :error-fn (lambda (err)
                     (ccdag-sessions--finish buf token nil (or (plist-get err :message) (format "%S" err))))
         :timeout-fn (lambda () (ccdag-sessions--finish buf token nil "no answer"))
         :timeout 600)
      (let* ((out (generate-new-buffer " *ccdag sessions*"))
             ;; `ccdag sessions' names paths relative to the folder it runs in; the sentinel runs
             ;; in whatever buffer is current when it ends
             (dir default-directory)
             (proc (make-process
                    :name "ccdag-sessions" :buffer out :noquery t
                    :command (append (list ccdag-program "sessions" "--format" "json")
                                     (unless (string-empty-p ccdag-sessions--query)
                                       (list "--query" ccdag-sessions--query)))
                    :stderr (get-buffer-create " *ccdag sessions stderr*")
                    :sentinel
                    (lambda (p _)
                      (unless (process-live-p p)
                        (let ((doc (with-current-buffer out
                                     (goto-char (point-min))
                                     (ignore-errors
                                       (json-parse-buffer :object-type 'plist :array-type 'list
                                                          :null-object nil :false-object nil)))))
                          (kill-buffer out)
                          (if (not doc)
                              (ccdag-sessions--finish buf token nil "ccdag sessions gave no list")
                            (ccdag-sessions--finish
                             buf token
                             (mapcar (lambda (s)
                                       (plist-put s :uri (concat "file://" (expand-file-name (plist-get s :path) dir))))
                                     (plist-get doc :sessions))
                             nil))))))))
        (setq ccdag-sessions--cancel (lambda () (delete-process proc)))))
    (ccdag-sessions--render)))

(defun ccdag-sessions--refresh ()
  "Ask for the sessions again (g)."
  (ccdag-sessions--ask))

(defun ccdag-sessions-filter (query)
  "Show the sessions one of whose records holds every word of QUERY.
The empty QUERY shows every session.  As `ccdag search' finds records:
prompts, replies, thinking, tool inputs and results, not titles alone."
  (interactive (list (read-string "Sessions holding the words: " ccdag-sessions--query)))
  (setq ccdag-sessions--query (string-trim query))
  (ccdag-sessions--ask))

(defun ccdag-sessions-open ()
  "Open the main log of the session at point."
  (interactive)
  (let ((uri (tabulated-list-get-id)))
    (unless uri (user-error "No session on this line"))
    (find-file (ccdag--uri-to-path uri))))

(defvar ccdag-sessions-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "RET") #'ccdag-sessions-open)
    (define-key m (kbd "/") #'ccdag-sessions-filter)
    (define-key m (kbd "s") #'ccdag-sessions-filter)
    m))

(define-derived-mode ccdag-sessions-mode tabulated-list-mode "ccdag-sessions"
  "The Claude Code sessions.
RET opens one, / filters by the words a record holds, g asks again, q closes."
  ;; Figures sort by their numbers (output tokens, then input), text columns by their text.
  (setq tabulated-list-format
        (vector (list "When (local)" 16 (ccdag-sessions--by-key 0)) (list "Deletes" 13 (ccdag-sessions--by-key 1))
                (list "Project (cwd)" 34 (ccdag-sessions--by-whole 2)) (list "Tokens out/in" 14 (ccdag-sessions--by-key 3))
                (list "Cost" 11 (ccdag-sessions--by-key 4)) (list "Resume" 9 (ccdag-sessions--by-key 5))
                (list "Findings" 8 (ccdag-sessions--by-key 6)) '("Title" 60 t)))
  (setq tabulated-list-padding 1)
  (add-hook 'tabulated-list-revert-hook #'ccdag-sessions--refresh nil t)
  (add-hook 'kill-buffer-hook (lambda () (when ccdag-sessions--cancel (ignore-errors (funcall ccdag-sessions--cancel)))) nil t)
  (tabulated-list-init-header))

;;;###autoload
(defun ccdag-sessions ()
  "List the Claude Code sessions (request `ccdag/sessions').
Returns at once; the rows arrive as they are read.  RET opens one,
/ filters, g refreshes, q closes."
  (interactive)
  (let ((server (ignore-errors (eglot-current-server)))
        (buf (get-buffer-create "*ccdag-sessions*")))
    (with-current-buffer buf
      (ccdag-sessions-mode)
      (setq ccdag-sessions--server server)
      (ccdag-sessions--ask))
    (pop-to-buffer buf)
    buf))

(provide 'ccdag-sessions)
;;; ccdag-sessions.el ends here
