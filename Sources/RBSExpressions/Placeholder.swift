enum ExpressionsPlaceholder {}
