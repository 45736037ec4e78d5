package catalog

import (
	"reflect"
	"strings"
	"testing"
)

// fill sets every exported field reachable from v to a value other than its zero (pointers
// made, one element in slices), but fields holding a session's records: a cached row holds only
// figures (resume.Result.Figures).
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || strings.Contains(f.Type.String(), "session.") {
				continue
			}
			fill(v.Field(i), n)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), n)
	case reflect.String:
		v.SetString("s" + strings.Repeat("x", *n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Bool:
		v.SetBool(true)
	}
}

// A row read back from the cache is the row stored, every field of it, those its JSON leaves out
// (json:"-": Mod, the tokens' cost, ...) included: a new field that does not survive fails here.
func TestStoredRowRoundTrips(t *testing.T) {
	var r Row
	n := 0
	fill(reflect.ValueOf(&r).Elem(), &n)
	r.Resume = r.Resume.Figures() // what RowOf keeps of a resume
	b, err := Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Errorf("round trip lost fields:\n got %+v\nwant %+v", got, r)
	}
	if _, err := Decode([]byte(`{"other":1}`)); err == nil {
		t.Error("a blob that is not a row decoded")
	}
}
