package main

import (
	"strconv"
	"testing"
	"time"

	"github.com/switchboard/switchboard/webhooks"
)

// TestVerifyStandard: the receiver's own Standard Webhooks check accepts the specification's reference vector
// and what the service signs, and refuses a delivery whose id or timestamp was changed (a replay made to look new).
func TestVerifyStandard(t *testing.T) {
	if !verifyStandard("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330",
		[]byte(`{"test": 2432232314}`), "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=") {
		t.Error("the reference vector does not verify")
	}
	const secret = "receiver-secret-0123456789"
	body := []byte(`{"event":"provider.down"}`)
	ts := time.Now().Unix()
	sig := webhooks.SignStandard(secret, "msg_1", ts, body)
	if !verifyStandard(secret, "msg_1", strconv.FormatInt(ts, 10), body, "v0,bogus "+sig) {
		t.Error("the service's signature does not verify")
	}
	if verifyStandard(secret, "msg_1", strconv.FormatInt(ts+600, 10), body, sig) || verifyStandard(secret, "msg_2", strconv.FormatInt(ts, 10), body, sig) {
		t.Error("a changed timestamp or id still verifies")
	}
}
