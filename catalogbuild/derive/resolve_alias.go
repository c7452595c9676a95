package derive

import (
	"strings"

	"github.com/switchboard/switchboard/gen/api"
	"github.com/switchboard/switchboard/seeds"
)

func init() {
	Register(Deriver{Name: "resolve_alias", Needs: []string{"model_versions"}, Build: buildResolveAlias})
}

// resolveAliasOf is the resolution view of one model-versions record: the pinned version, its release date
// (from the record's versions) and a note saying where the pointer comes from.
func resolveAliasOf(v api.ModelVersionsRecord) api.ResolveAliasRecord {
	r := api.ResolveAliasRecord{ProviderId: v.ProviderId, Alias: v.Alias, CurrentPinnedVersion: v.CurrentPinnedVersion, AutoUpdates: v.AliasAutoUpdates,
		Sources: v.Sources, Confidence: v.Confidence}
	if v.CurrentPinnedVersion != nil {
		for _, ver := range v.Versions {
			if ver.VersionId == *v.CurrentPinnedVersion {
				r.ReleaseDate = ver.ReleaseDate
			}
		}
		r.Notes = ptrTo("Points to " + *v.CurrentPinnedVersion + " per " + documentedPointers[v.ProviderId+"/"+v.Alias].URL + ".")
		return r
	}
	ids := make([]string, len(v.Versions))
	for i, ver := range v.Versions {
		ids[i] = ver.VersionId
	}
	note := "The version this alias points to is not stated in the source data or the provider's model page."
	if len(ids) > 0 {
		note += " Pinned versions, newest first: " + strings.Join(ids, ", ") + "."
	}
	r.Notes = &note
	return r
}

func buildResolveAlias(in *Input) (*Catalog, error) {
	c, err := in.Catalog("model_versions")
	if err != nil {
		return nil, err
	}
	versions, err := seeds.Records[api.ModelVersionsRecord](c)
	if err != nil {
		return nil, err
	}
	recs := make([]api.ResolveAliasRecord, len(versions))
	for i, v := range versions {
		recs[i] = resolveAliasOf(v)
	}
	return &Catalog{AsOf: c.AsOf, Sources: c.Sources, Records: recs}, nil
}
