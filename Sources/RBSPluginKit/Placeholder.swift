enum KitPlaceholder {}
