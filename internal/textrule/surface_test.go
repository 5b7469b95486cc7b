package textrule

import (
	"slices"
	"strings"
	"testing"
)

// TestSurfaceKeys pins the forms Ingest compares names and types in.
func TestSurfaceKeys(t *testing.T) {
	cases := []struct {
		in                    string
		name, typ, rel, loose string
	}{
		{"  Zhang   San ", "zhang san", "zhang_san", "zhang_san", "zhang san"},
		{"ＡＣＭＥ　Corp.", "acme corp.", "acme_corp.", "acme_corp.", "acme corp"},
		{"WorksAt", "worksat", "worksat", "works_at", "worksat"},
		{"works-at", "works-at", "works-at", "works_at", "works at"},
		{"Works__At", "works__at", "works__at", "works_at", "works at"},
		{"was the first\tpresident of", "was the first president of", "was_the_first_president_of", "was_the_first_president_of", "was the first president of"},
		{"张三", "张三", "张三", "张三", "张三"},
		{"", "", "", "", ""},
		{" \t ", "", "", "", ""},
		{"...", "...", "...", "...", ""},
		{"\xff", "\ufffd", "\ufffd", "\ufffd", ""},
	}
	for _, c := range cases {
		got := [4]string{NameKey(c.in), TypeKey(c.in), RelationTypeKey(c.in), LooseNameKey(c.in)}
		want := [4]string{c.name, c.typ, c.rel, c.loose}
		if got != want {
			t.Errorf("keys of %q = %q, want %q", c.in, got, want)
		}
	}
	// The pgraph rule these replace: Fold, then white-space runs collapsed.
	for _, s := range []string{"  A\u3000b  ", "Ǆemal  Bijedić", "x\u00a0y", "ΣΊΣΥΦΟΣ\nKelvin"} {
		if got, want := NameKey(s), strings.Join(strings.Fields(Fold(s)), " "); got != want {
			t.Errorf("NameKey(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestTypeFamily: the types of one family share it, and others have none.
func TestTypeFamily(t *testing.T) {
	for _, group := range [][]string{{"person", "human", "per"}, {"company", "org", "university"}, {"city", "gpe"}, {"公司", "机构"}} {
		for _, typ := range group {
			if TypeFamily(typ) == "" || TypeFamily(typ) != TypeFamily(group[0]) {
				t.Errorf("TypeFamily(%q) = %q, want that of %q (%q)", typ, TypeFamily(typ), group[0], TypeFamily(group[0]))
			}
		}
	}
	for _, typ := range []string{"", "Person", "award", "human being"} {
		if f := TypeFamily(typ); f != "" {
			t.Errorf("TypeFamily(%q) = %q, want none", typ, f)
		}
	}
}

// TestUnionAliases keeps the first spelling of each alias, in order, and
// drops the name and empty ones.
func TestUnionAliases(t *testing.T) {
	got := UnionAliases("Acme Corp", []string{" ACME corp ", "Acme", ""}, []string{"acme", "Acme  Inc", "ACME INC", " "})
	if want := []string{"Acme", "Acme  Inc"}; !slices.Equal(got, want) {
		t.Errorf("UnionAliases = %q, want %q", got, want)
	}
	if got := UnionAliases("x", nil, nil); got != nil {
		t.Errorf("UnionAliases of none = %q, want nil", got)
	}
}

// TestSplitCamel splits at lower-to-upper changes only.
func TestSplitCamel(t *testing.T) {
	for in, want := range map[string]string{"directedBy": "directed By", "HTTPServer": "HTTPServer", "has2Parts": "has2 Parts", "already split": "already split"} {
		if got := SplitCamel(in); got != want {
			t.Errorf("SplitCamel(%q) = %q, want %q", in, got, want)
		}
	}
}
