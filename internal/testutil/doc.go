// Package testutil holds small helpers that tests and benchmarks of several packages share
// (tests only). Golden files are package golden's; the real logs, testcorpus'.
package testutil
