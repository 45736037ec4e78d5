package session

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/ccdag/ccdag/internal/jsonl"
)

// emptyRecord must look at every field of jsonl.Record: a field added there and forgotten here
// would make records that carry it vanish. Each field set on its own makes the record non-empty.
func TestEmptyRecordCoversEveryField(t *testing.T) {
	if z := jsonl.Zero(); !emptyRecord(&z) {
		t.Fatal("the zero record is not empty")
	}
	typ := reflect.TypeOf(jsonl.Record{})
	for i := 0; i < typ.NumField(); i++ {
		r := jsonl.Zero()
		f := reflect.ValueOf(&r).Elem().Field(i)
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem() // the Detail is unexported
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(1)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Struct:
			f.Field(0).SetInt(1)
		default:
			t.Fatalf("field %s of kind %s: teach this test to set it", typ.Field(i).Name, f.Kind())
		}
		if emptyRecord(&r) {
			t.Errorf("a record with only %s set counts as empty", typ.Field(i).Name)
		}
	}
}

// A file of empty objects keeps no record for them, yet is JSON Lines (not not-jsonl), also after
// an edit.
func TestEmptyObjectsKeepNoRecords(t *testing.T) {
	f := NewFile("/x.jsonl", []byte("{}\n{\"unknown\":1}\n\x00\x01junk\n\x02junk\n\x03\n\x04\n\x05\n\x06\n\x07\n\x08\n"))
	if f.NotJSONL() || f.RecordCount() != 8 {
		t.Fatalf("notJSONL %v, %d records", f.NotJSONL(), f.RecordCount())
	}
	f.replace(0, 0, []byte("\x09\n"))
	if f.NotJSONL() {
		t.Error("after an edit: not-jsonl, though line 2 is an object")
	}
}
