package reports

import (
	"testing"

	"github.com/unlearnaudit/unlearnaudit/audit/verdict"
)

// summarize counts a reproduction's findings with a verdict.Tally. Its counts and verdict
// must stay those of the vocabulary's own rules (verdict.Count and verdict.Worst over the
// judged findings, and apart over the reported ones, measurements left out): every list
// of up to four findings drawn from the seven kinds is checked against them, and a few
// by hand, so that a drift in either shows here.
func TestSummarizeCountsAsTheVocabulary(t *testing.T) {
	kinds := []Finding{
		{Verdict: "PASS"}, {Verdict: "FAIL"}, {Verdict: "INCONCLUSIVE"},
		{Verdict: "PASS", Reported: true}, {Verdict: "FAIL", Reported: true}, {Verdict: "INCONCLUSIVE", Reported: true},
		{Verdict: "FAIL", Kind: string(verdict.Measurement)},
	}
	want := func(fs []Finding) Summary {
		var judged, reported []verdict.Finding
		for _, f := range fs {
			switch {
			case f.Kind == string(verdict.Measurement):
			case f.Reported:
				reported = append(reported, verdict.Finding{Verdict: verdict.Verdict(f.Verdict)})
			default:
				judged = append(judged, verdict.Finding{Verdict: verdict.Verdict(f.Verdict)})
			}
		}
		p, fl, i := verdict.Count(judged)
		s := Summary{Verdict: string(verdict.Worst(judged)), Pass: p, Fail: fl, Inconclusive: i}
		if len(reported) > 0 {
			p, fl, i := verdict.Count(reported)
			s.Reported = &Tally{Pass: p, Fail: fl, Inconclusive: i}
			if len(judged) == 0 {
				s.Verdict = NotJudged
			}
		}
		return s
	}
	cases := 0
	var walk func(fs []Finding)
	walk = func(fs []Finding) {
		cases++
		got, w := summarize(fs), want(fs)
		if got.Verdict != w.Verdict || got.Pass != w.Pass || got.Fail != w.Fail || got.Inconclusive != w.Inconclusive ||
			(got.Reported == nil) != (w.Reported == nil) || (got.Reported != nil && *got.Reported != *w.Reported) {
			t.Fatalf("summarize(%v) = %+v (reported %v); the vocabulary's rules give %+v (reported %v)", fs, got, got.Reported, w, w.Reported)
		}
		if len(fs) == 4 {
			return
		}
		for _, k := range kinds {
			walk(append(fs[:len(fs):len(fs)], k))
		}
	}
	walk(nil)
	if cases != 1+7+49+343+2401 {
		t.Fatalf("%d lists checked; want every list of up to four findings", cases)
	}
	for _, c := range []struct {
		fs   []Finding
		want Summary
	}{
		{nil, Summary{Verdict: "INCONCLUSIVE"}},
		{[]Finding{kinds[0], kinds[0], kinds[6]}, Summary{Verdict: "PASS", Pass: 2}},
		{[]Finding{kinds[0], kinds[2], kinds[4]}, Summary{Verdict: "INCONCLUSIVE", Pass: 1, Inconclusive: 1, Reported: &Tally{Fail: 1}}},
		{[]Finding{kinds[2], kinds[1], kinds[0]}, Summary{Verdict: "FAIL", Pass: 1, Fail: 1, Inconclusive: 1}},
		{[]Finding{kinds[3], kinds[5], kinds[6]}, Summary{Verdict: NotJudged, Reported: &Tally{Pass: 1, Inconclusive: 1}}},
		// a verdict the vocabulary does not know is counted inconclusive, and so decides
		// INCONCLUSIVE, never a PASS
		{[]Finding{kinds[0], {Verdict: "pass?"}}, Summary{Verdict: "INCONCLUSIVE", Pass: 1, Inconclusive: 1}},
	} {
		got := summarize(c.fs)
		if got.Verdict != c.want.Verdict || got.Pass != c.want.Pass || got.Fail != c.want.Fail || got.Inconclusive != c.want.Inconclusive ||
			(got.Reported == nil) != (c.want.Reported == nil) || (got.Reported != nil && *got.Reported != *c.want.Reported) {
			t.Errorf("summarize(%v) = %+v (reported %v); want %+v (reported %v)", c.fs, got, got.Reported, c.want, c.want.Reported)
		}
	}
}
