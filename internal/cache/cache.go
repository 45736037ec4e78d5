// Package cache is the history cache (docs/spec.md §14): what the whole-history views (`ccdag
// sessions`, the session browsers) computed of each session, kept in one SQLite database
// (modernc.org/sqlite: no cgo) in $CCDAG_CACHE_DIR, else the user cache folder's ccdag/, so that
// an unchanged history is answered without reading its logs again.
//
// An entry is a blob (the caller's encoding of what it computed) under a key (the session's main
// log) with a Stamp: the size, modification and change times and file identity of every log it
// was computed from, and the context that decided it (ccdag's build, the price table, the resume
// loader). An entry is used only when its stamp equals the stamp of the logs now; anything else is
// computed again and replaces it. A stamp is taken before the logs are read, so a log that changes
// while it is read leaves an entry that never matches again.
//
// Extras are entries of a second table, read by key only (Extras), never by a listing (All,
// Prefixed, Without): what only a session computed again needs (the secret scan of its logs,
// internal/catalog's scans.go) costs a warm listing nothing. Put writes both and drops a key from
// both.
//
// Each row carries a checksum of its bytes (sum): SQLite keeps none of its pages, so a row damaged on
// disk would be read back as it is; one whose checksum differs is left out when read (a miss: its
// session is computed again and the row written again whole).
//
// Concurrent processes share the database: WAL, every write one transaction, a busy timeout. A
// process killed in a transaction leaves the last committed state (SQLite's journal). A file that
// is not this cache (not SQLite, another application's, another schema, corrupt) is moved aside
// (`.bad-<time>`) and a new one made; an error while reading makes the caller compute, never trust.
package cache

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cespare/xxhash/v2"
	"modernc.org/sqlite"
)

// appID marks a database as ccdag's history cache (PRAGMA application_id: "ccdg").
const appID = 0x63636467

// schema is the layout's version (PRAGMA user_version); an older one of ours is made anew in place,
// another one is rebuilt. 2: a table with rowids, where a row of ~1.5 KB fits its page (a table
// WITHOUT ROWID, schema 1, kept at most ~1 KB of a row in its page and the rest on an overflow page
// of its own: twice the pages to read). 3: the extras table beside it (a log's kept secret scan).
// 4: a checksum of each row's bytes (sum).
const schema = 4

// FileName is the database's name in the cache folder.
const FileName = "history.sqlite"

// Dir is the cache folder: $CCDAG_CACHE_DIR, else os.UserCacheDir()/ccdag.
func Dir() (string, error) {
	if d := os.Getenv("CCDAG_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder: %w (set CCDAG_CACHE_DIR)", err)
	}
	return filepath.Join(d, "ccdag"), nil
}

// Cache is an open history cache. Safe for concurrent use.
type Cache struct {
	db   *sql.DB
	path string
}

// Entry is one session's blob and the stamp it was computed under.
type Entry struct {
	Key   string
	Stamp Stamp
	Data  []byte
}

// testHook, when set (tests), runs inside Put's transaction after half of its entries are written.
var testHook func()

// openFailedHook, when set (tests), runs when opening the file failed, before what is done about it.
var openFailedHook func()

// Open opens (making it when absent) the cache in dir. A file there that is not a cache of this
// schema is moved aside and replaced.
func Open(dir string) (*Cache, error) {
	return openIn(dir, nil)
}

// OpenWithout is Open, then Without(prefix): the read of the entries is the check Open makes of
// the file (a damaged one is moved aside, and the new one holds nothing), so the table is scanned
// once, not twice.
func OpenWithout(dir, prefix string) (*Cache, map[string]Entry, error) {
	var all map[string]Entry
	c, err := openIn(dir, func(c *Cache) error {
		read, err := c.without(prefix)
		if err == nil {
			all = read // only a file that passed: a damaged one is replaced by an empty cache
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if all == nil {
		all = map[string]Entry{}
	}
	return c, all, nil
}

// openIn opens the cache in dir, read is the check of a file that is the cache (nil: Open's own).
func openIn(dir string, read func(*Cache) error) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, FileName)
	for try := 0; ; try++ {
		create(path)
		was, _ := os.Lstat(path)
		c, err := openWaiting(path, read)
		if err == nil || try == 2 {
			return c, err
		}
		if openFailedHook != nil {
			openFailedHook()
		}
		if is, _ := os.Lstat(path); was != nil && (is == nil || !os.SameFile(was, is)) {
			// Another process moved the file aside meanwhile (SQLite fails with disk I/O errors on a
			// file moved, its -wal and -shm removed, while it opens it), maybe made a new one: what
			// failed is not there, and what is is opened, not moved aside in turn.
			continue
		}
		if !errors.Is(err, errForeign) && !isCorrupt(err) {
			return nil, err
		}
		// Not ours, or damaged: aside (kept for a look, its owner's only as the cache is), then a
		// new one.
		bad := fmt.Sprintf("%s.bad-%d", path, time.Now().UnixNano())
		if os.Rename(path, bad) == nil {
			if fi, err := os.Lstat(bad); err == nil && fi.Mode().IsRegular() { // never a link's target
				os.Chmod(bad, fi.Mode().Perm()&0o600)
			}
			dropAside(path)
		}
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
	}
}

// dropAside removes the copies of the cache at path moved aside (<path>.bad-<time>, with any -wal,
// -shm or -journal of theirs) but the newest: two ccdag builds of different schemas taking turns
// on one folder moved a whole cache aside every run, and nothing removed them.
func dropAside(path string) {
	dir, prefix := filepath.Dir(path), filepath.Base(path)+".bad-"
	es, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type aside struct {
		name string
		at   int64
	}
	var all []aside
	newest := int64(-1)
	for _, e := range es {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		digits, _, _ := strings.Cut(rest, "-")
		if at, err := strconv.ParseInt(digits, 10, 64); err == nil {
			all = append(all, aside{e.Name(), at})
			newest = max(newest, at)
		}
	}
	for _, a := range all {
		if a.at != newest {
			os.Remove(filepath.Join(dir, a.name))
		}
	}
}

// create makes the cache's file, readable by its owner only (titles and paths are the person's),
// unless there is one: SQLite would make it readable by all (0644 less the umask), and its -wal
// and -shm files take the database's mode.
func create(path string) {
	if f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
		f.Close()
	}
}

// openWaiting is open, tried again for a while when the database is busy. The busy timeout covers
// a write waiting for another's, not every lock taken at a connection's start: a process opening
// the file while another makes it (its first change to WAL) was refused at once with SQLITE_BUSY
// (1 of 40 runs of TestConcurrentWriters at load 8).
func openWaiting(path string, read func(*Cache) error) (*Cache, error) {
	for try := 0; ; try++ {
		c, err := open(path, read)
		if err == nil || !isBusy(err) || try == 50 {
			return c, err
		}
		time.Sleep(time.Duration(10+try*10) * time.Millisecond)
	}
}

// isBusy reports SQLite's "database is locked".
func isBusy(err error) bool {
	s := err.Error()
	return strings.Contains(s, "SQLITE_BUSY") || strings.Contains(s, "database is locked")
}

var errForeign = errors.New("not a ccdag history cache")

func open(path string, read func(*Cache) error) (*Cache, error) {
	// busy_timeout: concurrent writers wait for each other instead of failing; WAL: readers never
	// wait for a writer; synchronous=NORMAL is durable enough for a cache (WAL keeps it whole).
	// page_size: 64 KiB pages for a new file (a no-op on one made already), before WAL fixes it (the
	// driver runs _journal_mode after every _pragma): a warm listing reads 58 pages, not 900, and
	// spends 7 % less (docs/PERFORMANCE.md). journal_size_limit(0): the log of writes, kept between
	// processes (persistWAL), is cut to nothing once its pages are in the database.
	dsn := uri(path) + "?_pragma=busy_timeout(10000)&_pragma=page_size(65536)&_pragma=synchronous(NORMAL)&_pragma=journal_size_limit(0)&_journal_mode=WAL&_txlock=immediate"
	db := sql.OpenDB(persistWAL{dsn})
	db.SetMaxOpenConns(1) // one connection: the process's writes queue here, not in SQLite's lock
	c := &Cache{db: db, path: path}
	if read == nil {
		read = (*Cache).check
	}
	if err := c.init(read); err != nil {
		db.Close()
		return nil, err
	}
	return c, nil
}

// uri is path as a SQLite URI (https://www.sqlite.org/uri.html), whatever the cache folder's name:
// SQLite decodes %HH in the name and ends it at ? or #, so those three are escaped (a folder
// "x#y" opened the file x, another program's database maybe), and an absolute path gets the empty
// host ("file://" + path), so one starting with // is never read as a host.
func uri(path string) string {
	b := []byte("file:")
	if strings.HasPrefix(path, "/") {
		b = append(b, "//"...)
	}
	for i := 0; i < len(path); i++ {
		switch c := path[i]; c {
		case '%', '?', '#':
			b = append(b, '%', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&15])
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// persistWAL opens connections whose database keeps its -wal and -shm files when the last one
// closes (SQLITE_FCNTL_PERSIST_WAL): SQLite otherwise deletes both then, and the next process made
// them again, two new inodes and a deletion of both a run, a quarter of a warm listing's read of the
// cache (docs/PERFORMANCE.md, "The history cache"). What they hold is what SQLite would find in them
// after a process killed mid-run: their use is unchanged (TestPersistentWAL).
type persistWAL struct{ dsn string }

func (c persistWAL) Connect(context.Context) (driver.Conn, error) {
	dc, err := c.Driver().Open(c.dsn)
	if err != nil {
		return nil, err
	}
	if fc, ok := dc.(sqlite.FileControl); ok {
		if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
			dc.Close()
			return nil, err
		}
	}
	return dc, nil
}

func (persistWAL) Driver() driver.Driver { return &sqlite.Driver{} }

// init checks the database is this cache (or empty, then makes it), then reads it with read.
func (c *Cache) init(read func(*Cache) error) error {
	app, ver, err := ids(c.db)
	if err != nil {
		return err
	}
	if app == appID && ver == schema {
		return read(c)
	}
	// Not ours, or not yet: decided holding the write lock (the transaction is immediate), where
	// another process's making of it is either whole or not begun. Read outside it, the two ids
	// could straddle that process's commit (application id 0, user_version ours) and a cache being
	// made by another process was taken for a foreign file and moved aside, with its writes.
	tx, err := c.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if app, ver, err = ids(tx); err != nil {
		return err
	}
	if app == appID && ver == schema {
		if err := tx.Commit(); err != nil {
			return err
		}
		return read(c)
	}
	stmts := []string{
		"CREATE TABLE entries (key TEXT PRIMARY KEY, stamp TEXT NOT NULL, data BLOB NOT NULL, sum INTEGER NOT NULL)",
		"CREATE TABLE extras (key TEXT PRIMARY KEY, stamp TEXT NOT NULL, data BLOB NOT NULL, sum INTEGER NOT NULL)",
		fmt.Sprintf("PRAGMA application_id = %d", appID),
		fmt.Sprintf("PRAGMA user_version = %d", schema),
	}
	older := app == appID && ver >= 1 && ver < schema
	if older {
		// An older layout of ours (a previous ccdag): its entries go, the tables are made anew.
		stmts = append([]string{"DROP TABLE entries", "DROP TABLE IF EXISTS extras"}, stmts...)
	} else {
		if app != 0 || ver != 0 {
			return errForeign
		}
		var tables int
		if err := tx.QueryRow("SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
			return err
		}
		if tables != 0 {
			return errForeign // another application's database without an application id
		}
	}
	for _, q := range stmts {
		if _, err := tx.Exec(q); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if older {
		// The older build, on its turn, moves this cache aside (another schema to it): keep one copy.
		dropAside(c.path)
	}
	return nil
}

// ids reads the database's application id and schema version.
func ids(q interface {
	QueryRow(string, ...any) *sql.Row
}) (app, ver int, err error) {
	if err = q.QueryRow("PRAGMA application_id").Scan(&app); err == nil {
		err = q.QueryRow("PRAGMA user_version").Scan(&ver)
	}
	return app, ver, err
}

// check reads the table once, so a damaged file is found at open rather than half-way, and the
// keys' index (a b-tree of its own beside the table's), which must hold as many rows: both in one
// statement, one snapshot (two would see another process's commit between them).
func (c *Cache) check() error {
	var rows, keys int
	if err := c.db.QueryRow("SELECT (SELECT count(*) FROM entries NOT INDEXED), ("+keyCount+")").Scan(&rows, &keys); err != nil {
		return err
	}
	return sameCount(rows, keys)
}

// keyCount counts the keys' index.
const keyCount = "SELECT count(*) FROM entries INDEXED BY sqlite_autoindex_entries_1"

func sameCount(rows, keys int) error {
	if rows != keys {
		return fmt.Errorf("%w: %d rows, %d keys", errCorruptEntry, rows, keys)
	}
	return nil
}

// isCorrupt reports the errors of a file that is not a (whole) SQLite database.
func isCorrupt(err error) bool {
	s := err.Error()
	return strings.Contains(s, "SQLITE_NOTADB") || strings.Contains(s, "SQLITE_CORRUPT") ||
		strings.Contains(s, "file is not a database") || strings.Contains(s, "malformed") ||
		strings.Contains(s, "no such table") || strings.Contains(s, "no such index")
}

// Close closes the database.
func (c *Cache) Close() error { return c.db.Close() }

// Path is the database file.
func (c *Cache) Path() string { return c.path }

// All returns every entry, by key (one scan of the table: a history is a few thousand entries).
func (c *Cache) All() (map[string]Entry, error) {
	all, _, err := c.query("SELECT key, stamp, data, sum FROM entries")
	return all, err
}

// Prefixed returns the entries whose key starts with prefix (of the kind a caller keeps under it).
func (c *Cache) Prefixed(prefix string) (map[string]Entry, error) {
	all, _, err := c.query("SELECT key, stamp, data, sum FROM entries WHERE substr(key, 1, ?) = ?", len(prefix), prefix)
	return all, err
}

// Without returns the entries whose key does not start with prefix: one kind's blobs are not read
// by a caller that needs the others.
func (c *Cache) Without(prefix string) (map[string]Entry, error) {
	all, _, err := c.query("SELECT key, stamp, data, sum FROM entries WHERE substr(key, 1, ?) != ?", len(prefix), prefix)
	return all, err
}

// counted is what a query saw: its rows, and the keys' index's count a fifth column gave.
type counted struct{ rows, keys int }

// without is Without checking the file as check does: it reads every row (the data of those it
// returns) and, in the same statement, counts the keys' index.
func (c *Cache) without(prefix string) (map[string]Entry, error) {
	all, n, err := c.query("SELECT key, stamp, CASE WHEN substr(key, 1, ?) = ? THEN NULL ELSE data END, sum, ("+keyCount+") FROM entries", len(prefix), prefix)
	if err == nil && n.rows > 0 { // an empty table: nothing to count the index against in this snapshot
		err = sameCount(n.rows, n.keys)
	}
	return all, err
}

// query reads the rows of q (key, stamp, data, sum: a NULL data is a row left out, and so is a row
// whose bytes are not those its sum was taken of; a fifth column, the same in every row, a count of
// keys) and counts them.
func (c *Cache) query(q string, args ...any) (map[string]Entry, counted, error) {
	// Through the driver's own rows: database/sql would copy each blob a second time (Scan) and
	// lock around every row, a fifth of a warm listing's read of 3 000 entries.
	ctx := context.Background()
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return nil, counted{}, err
	}
	defer conn.Close()
	out := map[string]Entry{}
	var n counted
	err = conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			return errors.New("sqlite driver without QueryContext")
		}
		named := make([]driver.NamedValue, len(args))
		for i, a := range args {
			v, err := driver.DefaultParameterConverter.ConvertValue(a) // an int as int64, as database/sql does
			if err != nil {
				return err
			}
			named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
		}
		// A scan reads each page once: a page cache of 4 pages, not SQLite's 2 MB, which a scan of 4 MB
		// filled with fresh memory (500 page faults a warm listing); SQLite's own size put back after.
		if ec, ok := dc.(driver.ExecerContext); ok {
			if _, err := ec.ExecContext(ctx, "PRAGMA cache_size = -256", nil); err == nil {
				defer ec.ExecContext(ctx, "PRAGMA cache_size = -2000", nil)
			}
		}
		rows, err := qc.QueryContext(ctx, q, named)
		if err != nil {
			return err
		}
		defer rows.Close()
		dest := make([]driver.Value, len(rows.Columns()))
		for {
			if err := rows.Next(dest); err == io.EOF {
				return nil
			} else if err != nil {
				return err
			}
			n.rows++
			if len(dest) > 4 {
				k, _ := dest[4].(int64)
				n.keys = int(k)
			}
			if dest[2] == nil {
				continue // left out by q
			}
			key, ok1 := text(dest[0])
			stamp, ok2 := text(dest[1])
			data, ok3 := dest[2].([]byte) // the driver's own copy
			if !ok1 || !ok2 || !ok3 {
				return fmt.Errorf("%w: an entry of types %T %T %T", errCorruptEntry, dest[0], dest[1], dest[2])
			}
			if s, ok := dest[3].(int64); !ok || s != sum(key, stamp, data) {
				continue // damaged: a miss, computed and written again
			}
			out[key] = Entry{Key: key, Stamp: Stamp(stamp), Data: data}
		}
	})
	if err != nil {
		return nil, counted{}, err
	}
	return out, n, nil
}

// errCorruptEntry is an entry whose columns are not of the table's types, or a table and its
// keys' index that disagree.
var errCorruptEntry = errors.New("SQLITE_CORRUPT")

// text is a TEXT column's value (the driver gives a string; a blob stored there, bytes).
func text(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return "", false
}

// Extras returns the extras of keys that the cache holds (a key it does not hold is not in the map).
func (c *Cache) Extras(keys []string) (map[string]Entry, error) {
	out := map[string]Entry{}
	if len(keys) == 0 {
		return out, nil
	}
	tx, err := c.db.Begin() // one read of the database for every key
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	get, err := tx.Prepare("SELECT key, stamp, data, sum FROM extras WHERE key = ?")
	if err != nil {
		return nil, err
	}
	defer get.Close()
	for _, k := range keys {
		e := Entry{Key: k}
		var key, stamp string
		var s int64
		switch err := get.QueryRow(k).Scan(&key, &stamp, &e.Data, &s); {
		case errors.Is(err, sql.ErrNoRows):
			continue
		case err != nil:
			return nil, err
		}
		if key != k || s != sum(key, stamp, e.Data) {
			continue // damaged (the key as stored: the index's may be whole): as if not kept
		}
		e.Stamp = Stamp(stamp)
		out[k] = e
	}
	return out, nil
}

// Put writes entries (replacing those of the same keys) and deletes the keys in drop, in one
// transaction.
func (c *Cache) Put(entries []Entry, drop []string) error { return c.PutExtras(entries, nil, drop) }

// PutExtras is Put writing extras too; the keys in drop are deleted from both tables.
func (c *Cache) PutExtras(entries, extras []Entry, drop []string) error {
	if len(entries) == 0 && len(extras) == 0 && len(drop) == 0 {
		return nil
	}
	tx, err := c.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, table := range []struct {
		name string
		es   []Entry
	}{{"entries", entries}, {"extras", extras}} {
		if len(table.es) == 0 {
			continue
		}
		// An entry of a key stored before is updated where it is (REPLACE deleted and inserted the row
		// again: its key's index page written too, a 64 KiB page of the log of writes more).
		put, err := tx.Prepare("INSERT INTO " + table.name + " (key, stamp, data, sum) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET stamp = excluded.stamp, data = excluded.data, sum = excluded.sum")
		if err != nil {
			return err
		}
		defer put.Close()
		for i, e := range table.es {
			if table.name == "entries" && i == len(table.es)/2 && testHook != nil {
				testHook()
			}
			if _, err := put.Exec(e.Key, string(e.Stamp), e.Data, sum(e.Key, string(e.Stamp), e.Data)); err != nil {
				return err
			}
		}
	}
	for _, k := range drop {
		for _, q := range []string{"DELETE FROM entries WHERE key = ?", "DELETE FROM extras WHERE key = ?"} {
			if _, err := tx.Exec(q, k); err != nil {
				return err
			}
		}
	}
	return tx.Commit()
}

// sum is a row's checksum: xxhash64 of its key, stamp and data, each length first. It finds bytes
// damaged on disk (SQLite keeps no checksum of its pages), at ~20 GB/s: 0.2 ms for a warm listing's
// 3 MB; it is not meant to resist someone who can write the cache.
func sum(key, stamp string, data []byte) int64 {
	var lens [2 * binary.MaxVarintLen64]byte
	d := xxhash.New()
	d.Write(binary.AppendUvarint(binary.AppendUvarint(lens[:0], uint64(len(key))), uint64(len(stamp))))
	d.WriteString(key)
	d.WriteString(stamp)
	d.Write(data)
	return int64(d.Sum64())
}

// Keys returns every key in the cache.
func (c *Cache) Keys() ([]string, error) {
	rows, err := c.db.Query("SELECT key FROM entries")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// Stamp is what an entry is valid for: its logs as they were on disk and the context.
type Stamp string

// StampOf stamps the logs at paths (in order) under context ctx. A log that cannot be looked at
// is an error: its session is computed, not answered from the cache.
func StampOf(paths []string, ctx string) (Stamp, error) { return StampWith(paths, ctx, os.Lstat) }

// StampWith is StampOf with lstat's answers from the caller (one it already has of a log: a walk's).
func StampWith(paths []string, ctx string, lstat func(string) (os.FileInfo, error)) (Stamp, error) {
	b, err := AppendStamp(nil, paths, ctx, lstat)
	return Stamp(b), err
}

// AppendStamp is StampWith's stamp appended to b: a caller comparing it with a stored one (string(b)
// == string(e.Stamp)) makes no string of it, nor of its numbers.
func AppendStamp(b []byte, paths []string, ctx string, lstat func(string) (os.FileInfo, error)) ([]byte, error) {
	b = append(b, ctx...)
	for _, p := range paths {
		fi, err := lstat(p)
		if err != nil {
			return b, err
		}
		b = append(b, 0)
		b = append(b, p...)
		b = append(b, 0)
		b = strconv.AppendInt(b, fi.Size(), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, fi.ModTime().UnixNano(), 10)
		b = append(b, ' ')
		b = appendIdentity(b, fi)
	}
	return b, nil
}

// exeOnce is the executable's part of Build: one open and one read of its first 32 KiB, once.
var exeOnce = sync.OnceValue(func() string {
	p, err := os.Executable()
	if err != nil {
		return "?"
	}
	f, err := os.Open(p)
	if err != nil { // an executable we may run but not read: its size and time only
		fi, err := os.Stat(p)
		if err != nil {
			return "?"
		}
		return exeKey(fi.Size(), fi.ModTime().UnixNano(), "")
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "?"
	}
	head := make([]byte, 32<<10)
	n, _ := io.ReadFull(f, head)
	return exeKey(fi.Size(), fi.ModTime().UnixNano(), buildID(f, head[:n]))
})

// exeKey names an executable by its size, modification time and Go build ID ("": not found).
func exeKey(size, mod int64, id string) string {
	k := strconv.FormatInt(size, 10) + " " + strconv.FormatInt(mod, 10)
	if id != "" {
		k += " " + id
	}
	return k
}

// Build names this binary for a stamp's context: its version and, since a development build
// ("dev") changes without its version, the executable's size, modification time and Go build ID
// (two builds alike in size and time, as -buildvcs=false builds or packagers that fix times make,
// differ in it).
func Build(version string) string {
	return version + " " + exeOnce()
}

// buildID is the Go build ID of the executable f, whose first bytes are head, as
// cmd/internal/buildid finds it: in an ELF file the linker writes it in a note (elfBuildID),
// elsewhere (Mach-O, PE) as the text's first bytes, "\xff Go build ID: \"…\"\n \xff". "" when
// not found.
func buildID(f io.ReaderAt, head []byte) string {
	if id := elfBuildID(f); id != "" {
		return id
	}
	const prefix, end = "\xff Go build ID: \"", "\"\n \xff"
	i := bytes.Index(head, []byte(prefix))
	if i < 0 {
		return ""
	}
	i += len(prefix) - 1 // the opening quote
	j := bytes.Index(head[i+1:], []byte(end))
	if j < 0 {
		return ""
	}
	id, err := strconv.Unquote(string(head[i : i+1+j+1]))
	if err != nil {
		return ""
	}
	return id
}

// elfBuildID is the Go build ID note (name "Go", type 4) of the ELF file f, as debug/elf reads
// its segments: "" when f is no ELF file or holds none.
func elfBuildID(f io.ReaderAt) string {
	ef, err := elf.NewFile(f)
	if err != nil {
		return ""
	}
	for _, p := range ef.Progs {
		if p.Type != elf.PT_NOTE || p.Filesz > 1<<20 {
			continue
		}
		notes := make([]byte, p.Filesz)
		if _, err := p.ReadAt(notes, 0); err != nil {
			continue
		}
		for len(notes) >= 12 { // name size, desc size, type, then name and desc, each padded to 4
			namesz, descsz := uint64(ef.ByteOrder.Uint32(notes)), uint64(ef.ByteOrder.Uint32(notes[4:]))
			end := 12 + (namesz+3)&^3 + (descsz+3)&^3
			if namesz > 1<<20 || descsz > 1<<20 || end > uint64(len(notes)) {
				break
			}
			if namesz == 4 && ef.ByteOrder.Uint32(notes[8:]) == 4 && string(notes[12:16]) == "Go\x00\x00" {
				return string(notes[16 : 16+descsz])
			}
			notes = notes[end:]
		}
	}
	return ""
}
