package qaset

import (
	"math/rand/v2"
	"strings"
)

// Org returns an agent's memory of a company, with about 500 questions for
// each of 1, 2 and 3 hops, half in English and half in Chinese.
//
// Entity types, some English and some Chinese: "person" (half with
// Chinese names, which have their pinyin as an alias, half with English
// names), "team", "部门" (department; Chinese names with English aliases),
// "project" (English and Chinese code names), "技术" (technology),
// "company" (clients), "城市" (city; Chinese cities named in Chinese with
// an English alias, others the other way round), "office" and "技能"
// (skill).
//
// Relation types, some English and some Chinese: 汇报给 (person → their
// manager), member_of (person → team), 隶属于 (team → 部门), works_on
// (person → project), 负责 (person → the project they lead), uses (project →
// 技术), client (project → company), based_at (person → office), 位于
// (office → 城市), headquartered_in (company → 城市), 擅长 (person → 技能),
// depends_on (project → project), 导师 (person → their mentor), heads
// (person → the 部门 they head) and owns (team → project).
func Org() *Set { return orgSet(rand.New(rand.NewPCG(0x6b676d656d, 0x6f7267))) }

func orgSet(rng *rand.Rand) *Set {
	b := newBuilder()
	buildOrg(b, rng)
	x := b.finish()
	qs := generate(x, orgSpec(), rng)
	return &Set{
		Name:      "org",
		Entities:  x.ents,
		Relations: x.rels,
		Vocabulary: map[string][]string{
			"汇报给":              {"report to", "manager", "boss", "汇报", "上级"},
			"member_of":        {"member of", "team", "成员", "团队", "组"},
			"隶属于":              {"department", "belong to", "隶属", "属于", "哪个部门"},
			"works_on":         {"works on", "working on", "involved in", "参与", "在做"},
			"负责":               {"lead", "in charge of", "负责", "负责人", "牵头"},
			"uses":             {"use", "technologies", "built with", "技术栈", "用了"},
			"client":           {"client", "customer", "客户", "甲方"},
			"based_at":         {"based", "office", "办公室", "办公"},
			"位于":               {"located", "which city", "位于", "哪个城市"},
			"headquartered_in": {"headquartered", "headquarters", "based in", "总部"},
			"擅长":               {"skills", "good at", "expertise", "擅长", "技能"},
			"depends_on":       {"depends on", "dependencies", "upstream", "依赖", "上游"},
			"导师":               {"mentor", "导师", "带"},
			"heads":            {"head of", "heads", "runs", "负责人", "管"},
			"owns":             {"owns", "owned by", "responsible for", "维护"},
		},
		InverseVocabulary: map[string][]string{
			"汇报给":        {"direct reports", "manages", "下属", "手下"},
			"导师":         {"mentees", "mentor", "徒弟", "带"},
			"depends_on": {"downstream", "depend on", "下游"},
		},
		TypeWords: map[string][]string{
			"person":  {"person", "people", "人", "同事"},
			"team":    {"team", "group", "团队", "组"},
			"部门":      {"department", "division", "部门"},
			"project": {"project", "项目"},
			"技术":      {"technology", "tech", "技术"},
			"company": {"company", "client", "公司", "客户"},
			"城市":      {"city", "城市"},
			"office":  {"office", "办公室"},
			"技能":      {"skill", "技能", "专长"},
		},
		Questions: qs,
	}
}

func buildOrg(b *builder, r *rand.Rand) {
	// Cities, offices, companies.
	cityID := map[string]string{}
	for _, c := range orgCities {
		cityID[c[0]] = b.add("city:"+slug(c[0]), c[0], "城市", c[1:]...)
	}
	var offices []string
	for _, o := range orgOffices {
		id := b.add("office:"+slug(o[0]), o[0], "office", o[1:len(o)-1]...)
		b.rel(id, "位于", cityID[o[len(o)-1]])
		offices = append(offices, id)
	}
	var cityIDs []string
	for _, c := range orgCities {
		cityIDs = append(cityIDs, cityID[c[0]])
	}
	cityDraw := newWeighted(zipfWeights(len(cityIDs), 0.9, 2))
	var companies []string
	seen := map[string]bool{}
	for len(companies) < 300 {
		var name string
		if len(companies)%2 == 0 {
			name = pickOne(r, orgCompanyPrefixes) + " " + pickOne(r, orgCompanySuffixes)
		} else {
			name = pickOne(r, orgCompanyPrefixesZh) + pickOne(r, orgCompanySuffixesZh)
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		id := b.add("company:"+slug(name), name, "company")
		b.rel(id, "headquartered_in", cityIDs[cityDraw.draw(r)])
		companies = append(companies, id)
	}

	// Technologies and skills.
	var techs []string
	for _, t := range orgTechnologies {
		t = strings.ReplaceAll(t, "_", " ")
		techs = append(techs, b.add(b.uniqueID("tech:"+slug(t)), t, "技术"))
	}
	r.Shuffle(len(techs), func(i, j int) { techs[i], techs[j] = techs[j], techs[i] })
	techDraw := newWeighted(zipfWeights(len(techs), 1.0, 2))
	var skills []string
	for _, s := range orgSkills {
		skills = append(skills, b.add(b.uniqueID("skill:"+slug(s[0])), s[0], "技能", s[1:]...))
	}
	r.Shuffle(len(skills), func(i, j int) { skills[i], skills[j] = skills[j], skills[i] })
	skillDraw := newWeighted(zipfWeights(len(skills), 0.9, 3))

	// People.
	const nPeople = 1800
	people := orgPeople(b, r, nPeople)
	officeDraw := newWeighted(zipfWeights(len(offices), 1.1, 1))
	for _, p := range people {
		b.rel(p, "based_at", offices[officeDraw.draw(r)])
		for _, s := range skillDraw.drawDistinct(r, 1+r.IntN(4)) {
			b.rel(p, "擅长", skills[s])
		}
	}

	// Departments, their heads and the CEO.
	next := 0
	take := func() string { p := people[next]; next++; return p }
	ceo := take()
	var depts []string
	var heads []string
	for _, d := range orgDepartments {
		id := b.add("dept:"+slug(d[0]), d[0], "部门", d[1:]...)
		depts = append(depts, id)
		h := take()
		heads = append(heads, h)
		b.rel(h, "heads", id)
		b.rel(h, "汇报给", ceo)
	}
	// Teams, each with a lead reporting to the department head.
	type team struct {
		id, lead string
		dept     int
		members  []string
	}
	var teams []*team
	for di, areas := range orgTeamAreas {
		for _, a := range areas {
			id := b.add(b.uniqueID("team:"+slug(a)), a, "team")
			b.rel(id, "隶属于", depts[di])
			t := &team{id: id, dept: di, lead: take()}
			b.rel(t.lead, "member_of", id)
			b.rel(t.lead, "汇报给", heads[di])
			t.members = append(t.members, t.lead)
			teams = append(teams, t)
		}
	}
	// Everyone else joins a team, weighted by department size and a
	// power law over teams.
	var teamW []float64
	for i, t := range teams {
		teamW = append(teamW, orgDeptWeights[t.dept]/float64(len(orgTeamAreas[t.dept]))*(0.4+1.2*float64(i%5)/4))
	}
	teamDraw := newWeighted(teamW)
	for next < len(people) {
		p := take()
		t := teams[teamDraw.draw(r)]
		if len(t.members) >= 28 {
			continue
		}
		b.rel(p, "member_of", t.id)
		b.rel(p, "汇报给", t.lead)
		t.members = append(t.members, p)
		if r.Float64() < 0.05 {
			t2 := teams[teamDraw.draw(r)]
			b.rel(p, "member_of", t2.id)
			t2.members = append(t2.members, p)
		}
	}
	// Mentors: a senior colleague in the same department.
	for _, t := range teams {
		for _, p := range t.members[1:] {
			if r.Float64() < 0.3 {
				var m string
				if r.Float64() < 0.6 {
					m = t.lead
				} else {
					o := teams[r.IntN(len(teams))]
					m = pickOne(r, o.members)
				}
				b.rel(p, "导师", m)
			}
		}
	}

	// Projects, owned by teams.
	var projNames []string
	projNames = append(projNames, orgProjectNames...)
	projNames = append(projNames, orgProjectNamesZh...)
	for _, n := range orgProjectNames[:40] {
		projNames = append(projNames, n+" 2.0")
	}
	for _, n := range orgProjectNamesZh[:20] {
		projNames = append(projNames, n+"二期")
	}
	r.Shuffle(len(projNames), func(i, j int) { projNames[i], projNames[j] = projNames[j], projNames[i] })
	if len(projNames) > 400 {
		projNames = projNames[:400]
	}
	var projects []string
	for _, n := range projNames {
		id := b.add(b.uniqueID("project:"+slug(n)), n, "project")
		t := teams[teamDraw.draw(r)]
		b.rel(t.id, "owns", id)
		lead := t.lead
		if r.Float64() < 0.5 {
			lead = pickOne(r, t.members)
		}
		b.rel(lead, "负责", id)
		b.rel(lead, "works_on", id)
		for range 2 + r.IntN(7) {
			w := pickOne(r, t.members)
			if r.Float64() < 0.2 {
				w = pickOne(r, teams[r.IntN(len(teams))].members)
			}
			b.rel(w, "works_on", id)
		}
		for _, k := range techDraw.drawDistinct(r, 2+r.IntN(5)) {
			b.rel(id, "uses", techs[k])
		}
		if r.Float64() < 0.6 {
			b.rel(id, "client", companies[r.IntN(len(companies))])
		}
		if len(projects) > 0 {
			for range r.IntN(3) {
				b.rel(id, "depends_on", projects[r.IntN(len(projects))])
			}
		}
		projects = append(projects, id)
	}
}

// orgPeople adds n people with unique names, alternately Chinese and
// English, in a random order.
func orgPeople(b *builder, r *rand.Rand, n int) []string {
	sd := newWeighted(zipfWeights(len(zhSurnames), 0.8, 2))
	gd := newWeighted(zipfWeights(len(zhGivenNames), 0.6, 3))
	fd := newWeighted(zipfWeights(len(firstNames), 0.6, 5))
	ld := newWeighted(zipfWeights(len(lastNames), 0.6, 5))
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var name, alias string
		if len(out)%2 == 0 {
			s, g := zhSurnames[sd.draw(r)], zhGivenNames[gd.draw(r)]
			name, alias = s[0]+g[0], s[1]+" "+g[1]
		} else {
			name = firstNames[fd.draw(r)] + " " + strings.ReplaceAll(lastNames[ld.draw(r)], "_", " ")
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		id := b.uniqueID("person:" + slug(name))
		if alias != "" {
			b.add(id, name, "person", alias)
		} else {
			b.add(id, name, "person")
		}
		out = append(out, id)
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
