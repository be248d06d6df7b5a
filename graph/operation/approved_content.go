package operation

import (
	"github.com/podium/podium/ent"
	"github.com/podium/podium/ent/submission"
)

// snapshot is the content approved for publication (docs/rest-api.md: approvedSnapshot).
func snapshot(s *ent.Submission) map[string]any {
	answers := s.Answers
	if answers == nil {
		answers = map[string]any{}
	}
	return map[string]any{"title": s.Title, "description": s.Description, "formatId": s.FormatID,
		"levelId": s.LevelID, "language": s.Language, "answers": answers}
}

// approveContent approves snap as the content the public sees.
func approveContent(u *ent.SubmissionUpdateOne, snap map[string]any) {
	u.SetApprovedSnapshot(snap).SetContentReviewStatus(submission.ContentReviewStatusApproved)
}

// approvedSnapshot is the session's approved snapshot as records show it: {} when none.
func approvedSnapshot(s *ent.Submission) map[string]any {
	if s.ApprovedSnapshot == nil {
		return map[string]any{}
	}
	return s.ApprovedSnapshot
}

// restoreContent puts an approved snapshot back on the live row: title, description, format,
// level, language and answers. An empty snapshot restores nothing.
func restoreContent(u *ent.SubmissionUpdateOne, snap map[string]any) {
	c, ok := publicContentOf(snap)
	if !ok {
		return
	}
	u.SetTitle(c.Title).SetDescription(c.Description).SetNillableFormatID(c.FormatID).SetNillableLevelID(c.LevelID)
	if c.FormatID == nil {
		u.ClearFormatID()
	}
	if c.LevelID == nil {
		u.ClearLevelID()
	}
	if lang, ok := snap["language"].(string); ok && lang != "" {
		u.SetLanguage(lang)
	}
	if answers, ok := snap["answers"].(map[string]any); ok {
		u.SetAnswers(answers)
	}
}
