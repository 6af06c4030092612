import QtQuick
Rectangle {
    width: 320; height: 240; color: "navy"
    Rectangle {
        id: box; width: 80; height: 80; x: 120; y: 80; color: "orange"
        NumberAnimation on rotation { from: 0; to: 360; duration: 1000; loops: Animation.Infinite }
    }
    Timer { interval: 1500; running: true; onTriggered: Qt.quit() }
}
