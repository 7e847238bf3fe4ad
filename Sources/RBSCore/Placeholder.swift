enum CorePlaceholder {}
