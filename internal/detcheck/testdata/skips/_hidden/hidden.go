package hidden

func Uses() { go Uses() }
