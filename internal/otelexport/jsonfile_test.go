package otelexport

import (
	"testing"
)

func TestHexIDs(t *testing.T) {
	in := `{"traceId": "AAECAwQFBgcICQoLDA0ODw==","spanId":"AAECAwQFBgc=", "parentSpanId" :"","name":"x \"spanId\":\"AAEC\"","links":[]}`
	want := `{"traceId":"000102030405060708090a0b0c0d0e0f","spanId":"0001020304050607", "parentSpanId":"","name":"x \"spanId\":\"AAEC\"","links":[]}`
	got, err := hexIDs([]byte(in))
	if err != nil || string(got) != want {
		t.Errorf("got %s, %v\nwant %s", got, err, want)
	}
}
