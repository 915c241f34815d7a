"""SCORM packages of a lesson: the one format every learning management system imports.

A package is a zip whose `imsmanifest.xml` names one SCO, `index.html`: a launch page that frames
the lab's `/embed/<id>` at the lab's public address and relays what the embedded lesson reports
to its page (docs/EMBEDDING.md) to the LMS's SCORM API (`runtime/lab-scorm.js`). The manifest is
SCORM 1.2 or SCORM 2004 4th Edition, with the ADL and IMS schema files that validate it at the
package's root, as the content packaging books ask (`schemas/`, README there).

This package knows nothing of Flask: `manifest` writes the manifest, `package` zips a rendered
launch page with it; `app.web.scorm` renders the page (in the lesson's language) and serves
the zip, and `mcp-lab package` writes the same bytes to a file.
"""
