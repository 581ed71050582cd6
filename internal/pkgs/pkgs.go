// Package pkgs finds, installs and reads pi packages the way pi 1.6's package manager does, so
// that pigo uses the packages a pi user already installed and installs missing ones where pi
// would look for them: npm packages under the agent dir's npm/ (or the project's .pi/npm/),
// git checkouts under git/HOST/PATH, local folders where they are, and -e sources in pi's
// cache under tmp/extensions/.
//
// A package is read, never run: its skills, prompt templates and themes (declared in the `pi`
// manifest of its package.json or found in the conventional skills/, prompts/ and themes/
// folders, then narrowed by the settings filters) are returned as files for the config loader;
// its code extensions are only listed, so that pigo can say what does not load. Discovery is
// confined to the package: a symbolic link or a manifest path that leads out of it is refused
// and reported, and the walk is bounded.
package pkgs
