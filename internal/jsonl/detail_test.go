package jsonl

import (
	"reflect"
	"testing"
)

// Detail.empty must look at every field: a field added to Detail and forgotten there would be
// dropped by ParseInto for records that set only it.
func TestDetailEmptyCoversEveryField(t *testing.T) {
	if !noDetail.empty() {
		t.Fatal("the shared Detail is not empty")
	}
	typ := reflect.TypeOf(Detail{})
	for i := 0; i < typ.NumField(); i++ {
		var d Detail
		f := reflect.ValueOf(&d).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Struct:
			f.Field(0).SetInt(1)
		default:
			t.Fatalf("field %s of kind %s: teach this test to set it", typ.Field(i).Name, f.Kind())
		}
		if d.empty() {
			t.Errorf("a Detail with only %s set counts as empty", typ.Field(i).Name)
		}
	}
}

// A tiny chain record shares the empty Detail; a record with any detail has its own, and parsing
// never writes the shared one.
func TestDetailSharedOnlyWhenEmpty(t *testing.T) {
	tiny := Parse([]byte(`{"type":"progress","uuid":"a","parentUuid":"b","sessionId":"s","timestamp":"t"}`))
	if tiny.HasDetail() || tiny.UUID != "a" || tiny.Parent != "b" || tiny.D().Model != "" || tiny.D().Blocks != nil {
		t.Errorf("tiny record: detail %v, %+v", tiny.HasDetail(), *tiny)
	}
	for _, line := range []string{
		`{"type":"assistant","uuid":"a","message":{"model":"m","content":[{"type":"text","text":"x"}]}}`,
		`{"type":"system","subtype":"compact_boundary","uuid":"a","parentUuid":null,"logicalParentUuid":"z"}`,
		`{"type":"progress","uuid":"a","parentToolUseID":"toolu_1","data":{"agentId":"x"}}`,
		`{"uuid":5}`,
	} {
		r := Parse([]byte(line))
		if !r.HasDetail() {
			t.Errorf("%s: no detail kept", line)
		}
	}
	if !noDetail.empty() {
		t.Fatalf("parsing wrote the shared Detail: %+v", noDetail)
	}
}
