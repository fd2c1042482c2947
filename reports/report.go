package reports

// Report is one report of the set: a course scenario ([*Built]) or the
// River target's report ([*River]). [Index], [Render] and [Site] take
// them in the order the index lists them. [*Side] is River, goqite and
// asynq side by side.
type Report interface {
	// Name is the report's file name without its extension
	// ("zombie-worker", "river-target").
	Name() string
	// Title is its title in language l.
	Title(l Lang) string
	// Files renders it in language l: the report and its charts. w says
	// which other files are written with it, for the report's links.
	Files(l Lang, w Written) ([]File, error)
	// SiteFile renders it as a page of the site: site/<lang>/<name>.html.
	SiteFile(l Lang, w Written) (File, error)
	// Held counts the checks (and claims) that held, and all of them.
	Held() (held, total int)
	// sources and arms are its cells of the index: the course documents
	// it comes from, and what it puts side by side.
	sources() string
	arms() string
	// charts renders its charts in language l.
	charts(l Lang) ([]chartFile, error)
	// render writes its Markdown in language l, linking to charts; with
	// site parts, the Markdown its site page is converted from (site.go).
	render(l Lang, charts []chartFile, w Written, site *siteParts) string
}

// Reports is the whole set in index order: the scenarios, then the River
// report and the side-by-side report (each when built).
func Reports(built []*Built, river *River, side *Side) []Report {
	out := make([]Report, 0, len(built)+2)
	for _, b := range built {
		out = append(out, b)
	}
	if river != nil {
		out = append(out, river)
	}
	if side != nil {
		out = append(out, side)
	}
	return out
}

// Name is the scenario's name.
func (b *Built) Name() string { return b.Scenario.Name }

// Title is the scenario's title in language l.
func (b *Built) Title(l Lang) string { return l.pick(b.Scenario.Title) }

func (b *Built) sources() string { return sourceList(b.Scenario) }
func (b *Built) arms() string    { return armList(b) }
