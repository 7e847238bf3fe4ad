enum LineEditorPlaceholder {}
